import type { Kafka } from 'kafkajs';
import type { KafkaSettings } from '../config/components.js';
import { loggableError, type Logger } from '../logger.js';
import { retryWithBackoff } from '../retry.js';
import { allTopics, topics, type Topics } from '../topics.js';
import { createKafka } from './kafka-client.js';
import { transientKafkaError } from './kafka-errors.js';
import { ensureTopics } from './topic-admin.js';

/**
 * How long a command waits for Kafka to settle: right after a broker restarted, its metadata may name a leader
 * that does not host a partition yet, for seconds; a deployment runs `ops migrate` right after bringing brokers up.
 */
const KAFKA_SETTLE_MS = 60_000;

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
 * command: errors kafkajs calls retriable (a broker restarting, a leader moving) are waited out for a minute.
 */
export async function bootstrapKafka(
  settings: KafkaSettings,
  logger: Logger,
  clientSuffix: string,
): Promise<{ kafka: Kafka; topics: Topics }> {
  const { kafka, topics: topicSet, ensureTopics: ensure } = kafkaDeployment(settings, logger, clientSuffix);
  const since = Date.now();
  await retryWithBackoff(ensure, {
    firstDelayMs: 1000,
    maxDelayMs: 5000,
    stopping: (err) => !transientKafkaError(err) || Date.now() - since > KAFKA_SETTLE_MS,
    failed: (err, attempt, delayMs) =>
      logger.warn(
        { attempt: attempt + 1, retry_in_ms: delayMs, err: loggableError(err) },
        'kafka not settled',
      ),
  });
  return { kafka, topics: topicSet };
}
