import type { Kafka } from 'kafkajs';
import { retryWithBackoff } from '../retry.js';
import { tooFewBrokersError, transientKafkaError } from './kafka-errors.js';

/** A topic as the deployment wants it: its name, partition count and configs (topics.ts). */
export interface TopicSpec {
  name: string;
  partitions: number;
  config: Record<string, string>;
}

/**
 * How long a command's topic check waits for Kafka to settle: right after a broker restarted, or right after a
 * topic was made, a broker's metadata may not host a partition yet, for seconds (kafkajs waits for leaders only
 * while they are "not available"); a deployment runs `ops migrate` right after bringing brokers up.
 */
const KAFKA_SETTLE_MS = 60_000;

/** Creates missing topics with their partition counts and configs; existing topics are left as they are. */
export async function ensureTopics(kafka: Kafka, specs: readonly TopicSpec[], replicationFactor: number) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.name));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({
        topic: s.name,
        numPartitions: s.partitions,
        replicationFactor,
        configEntries: Object.entries(s.config).map(([name, value]) => ({ name, value })),
      })),
    });
  } finally {
    await admin.disconnect();
  }
}

/**
 * A command's Kafka step, run again while it fails with what may pass (errors kafkajs calls retriable, a cluster with
 * fewer brokers registered than the replication factor) for a minute: a command has no start-up to retry it.
 */
export function kafkaSettled<T>(step: () => Promise<T>): Promise<T> {
  const since = Date.now();
  return retryWithBackoff(step, {
    firstDelayMs: 500,
    maxDelayMs: 5000,
    stopping: (err) =>
      !(transientKafkaError(err) || tooFewBrokersError(err)) || Date.now() - since > KAFKA_SETTLE_MS,
  });
}

/** ensureTopics for a command, its failures that may pass waited out. */
export function ensureTopicsSettled(kafka: Kafka, specs: readonly TopicSpec[], replicationFactor: number) {
  return kafkaSettled(() => ensureTopics(kafka, specs, replicationFactor));
}

export async function deleteTopics(kafka: Kafka, names: readonly string[]) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const present = names.filter((n) => existing.has(n));
    if (present.length > 0) await admin.deleteTopics({ topics: present });
  } finally {
    await admin.disconnect();
  }
}
