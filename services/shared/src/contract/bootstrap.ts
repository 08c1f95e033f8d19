import type { Kafka } from 'kafkajs';
import type { KafkaSettings } from '../platform/config/components.js';
import type { Logger } from '../platform/logger.js';
import { allTopics, topics, type Topics } from './topics.js';
import { createKafka } from '../platform/kafka/kafka-client.js';
import { ensureTopics, ensureTopicsSettled } from '../platform/kafka/topic-admin.js';

/**
 * A Kafka client and the deployment's topic names, without touching Kafka yet, and the step that creates the
 * missing topics (with their settings): a service can be built before Kafka answers and run the step when it does.
 */
export function kafkaDeployment(settings: KafkaSettings, logger: Logger, clientSuffix: string) {
  const kafka = createKafka(settings, logger, clientSuffix);
  const topicSet = topics(settings.topicPrefix, settings.replicationFactor);
  return {
    kafka,
    topics: topicSet,
    ensureTopics: () => ensureTopics(kafka, allTopics(topicSet), settings.replicationFactor),
  };
}

/**
 * A Kafka client with every topic of the deployment present (created with their settings when missing), for a
 * command: what Kafka says may pass (a broker restarting, a leader moving) is waited out for a minute.
 */
export async function bootstrapKafka(
  settings: KafkaSettings,
  logger: Logger,
  clientSuffix: string,
): Promise<{ kafka: Kafka; topics: Topics }> {
  const { kafka, topics: topicSet } = kafkaDeployment(settings, logger, clientSuffix);
  await ensureTopicsSettled(kafka, allTopics(topicSet), settings.replicationFactor);
  return { kafka, topics: topicSet };
}
