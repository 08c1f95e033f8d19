import type { Kafka } from 'kafkajs';
import type { KafkaSettings } from '../config/components.js';
import type { Logger } from '../logger.js';
import { allTopics, topics, type Topics } from '../topics.js';
import { createKafka } from './kafka-client.js';
import { ensureTopics } from './topic-admin.js';

/** A Kafka client with every topic of the deployment present (created with their settings when missing). */
export async function bootstrapKafka(
  settings: KafkaSettings,
  logger: Logger,
  clientSuffix: string,
): Promise<{ kafka: Kafka; topics: Topics }> {
  const kafka = createKafka(settings, logger, clientSuffix);
  const topicSet = topics(settings.topicPrefix, settings.replicationFactor);
  await ensureTopics(kafka, allTopics(topicSet), settings.replicationFactor);
  return { kafka, topics: topicSet };
}
