/** Every Kafka topic the service uses: names, partition counts and configs live here and nowhere else. */
export interface TopicSpec {
  name: string;
  partitions: number;
  config: Record<string, string>;
}

export interface Topics {
  /** Audit events, keyed by tenant_id so one tenant's events keep their order in one partition. */
  auditEvents: TopicSpec;
  /** Records the projector could not decode or validate, with their origin in headers. */
  projectorDeadLetter: TopicSpec;
}

export const AUDIT_EVENTS_PARTITIONS = 6;

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
  };
}
