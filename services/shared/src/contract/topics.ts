import type { TopicSpec } from '../platform/kafka/topic-admin.js';

/** Every Kafka topic the service uses: names, partition counts and configs live here and nowhere else. */
export type { TopicSpec };

export interface Topics {
  /** Audit events, keyed by tenant_id so one tenant's events keep their order in one partition. */
  auditEvents: TopicSpec;
  /** Records the projector could not decode or validate, with their origin in headers. */
  projectorDeadLetter: TopicSpec;
  /** Webhook deliveries waiting for retry n + 1 (index n), keyed by endpoint id, due time in headers. */
  webhookRetries: TopicSpec[];
  /** Deliveries whose last attempt failed, with their origin and last error in headers. */
  webhookDeadLetter: TopicSpec;
  /** Export jobs accepted by the API (schemas/export-job), keyed by tenant_id; the exporter runs them. */
  exportJobs: TopicSpec;
}

export const AUDIT_EVENTS_PARTITIONS = 6;
/** Retry tiers: the five delays of docs/contract.md "Delivery" (1 min … 12 h), each one configurable. */
export const WEBHOOK_RETRY_TIERS = 5;

// Kept until an operator sets a retention: the topic is the source of truth that replays rebuild from.
const keepForever = { 'cleanup.policy': 'delete', 'retention.ms': '-1', 'retention.bytes': '-1' };

export function topics(prefix: string, replicationFactor: number): Topics {
  const durable = {
    ...keepForever,
    'min.insync.replicas': String(Math.min(2, replicationFactor)),
    'max.message.bytes': String(4 * 1024 * 1024),
  };
  return {
    auditEvents: { name: `${prefix}audit.events.v1`, partitions: AUDIT_EVENTS_PARTITIONS, config: durable },
    projectorDeadLetter: { name: `${prefix}audit.events.v1.projector.dlq`, partitions: 1, config: durable },
    // A retry waits at most 12 h + 20 %; a week of retention leaves room for a long dispatcher outage.
    webhookRetries: Array.from({ length: WEBHOOK_RETRY_TIERS }, (_, i) => ({
      name: `${prefix}webhooks.retry.${i + 1}.v1`,
      partitions: AUDIT_EVENTS_PARTITIONS,
      config: { ...durable, 'retention.ms': String(7 * 24 * 3600 * 1000) },
    })),
    webhookDeadLetter: { name: `${prefix}webhooks.deliveries.dlq`, partitions: 1, config: durable },
    // A request is done with once its job ended; a month covers any exporter outage.
    exportJobs: {
      name: `${prefix}audit.export-jobs.v1`,
      partitions: AUDIT_EVENTS_PARTITIONS,
      config: { ...durable, 'retention.ms': String(30 * 24 * 3600 * 1000) },
    },
  };
}

/** Every topic of the set, flat. */
export const allTopics = (set: Topics): TopicSpec[] => Object.values(set).flat();
