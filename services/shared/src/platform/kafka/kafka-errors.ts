/**
 * True when a kafkajs error, or one it wraps, is one Kafka says may pass: a broker restarting, a leader moving, a
 * partition not yet hosted where the metadata says. kafkajs gives up on these after its own retries and wraps the
 * last one (KafkaJSNumberOfRetriesExceeded, itself not retriable), so the chain of causes is what tells.
 */
export function transientKafkaError(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (e.name.startsWith('KafkaJS') && (e as { retriable?: unknown }).retriable === true) return true;
  }
  return false;
}

/**
 * True when Kafka refused to make a topic for want of brokers (INVALID_REPLICATION_FACTOR), alone or among the
 * errors of several topics: brokers just started register one by one, so for seconds a cluster coming up looks
 * smaller than the replication factor.
 */
export function tooFewBrokersError(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const { type, errors } = e as { type?: unknown; errors?: unknown[] };
    if (type === 'INVALID_REPLICATION_FACTOR') return true;
    if (errors?.some((inner) => (inner as { type?: unknown }).type === 'INVALID_REPLICATION_FACTOR'))
      return true;
  }
  return false;
}
