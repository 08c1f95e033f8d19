import type { Kafka } from 'kafkajs';
import type { TopicSpec } from '../topics.js';

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
