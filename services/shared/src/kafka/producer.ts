import { Partitioners, type Kafka, type Producer } from 'kafkajs';

/**
 * Idempotent, acks=all: a send resolves only when every in-sync replica has the records, and broker-side
 * sequence numbers drop the copies a retried request would otherwise write. Retries are bounded (kafkajs warns
 * about that once) so a Kafka outage fails sends instead of queueing them forever; a caller that retries after a
 * failure re-sends the same event_id, which the projection deduplicates.
 */
export function createDurableProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // murmur2 on the key, as Java clients do: one tenant maps to the same partition from any producer.
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 2000 },
  });
}
