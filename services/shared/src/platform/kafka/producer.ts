import type { Kafka, Producer, ProducerRecord, RecordMetadata } from 'kafkajs';
import { keyPartitioner } from './key-partitioner.js';

const OPTIONS = {
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: false,
  // murmur2 on the key, as Java clients do: one tenant maps to the same partition from any producer.
  createPartitioner: keyPartitioner,
  retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 2000 },
};

/**
 * Idempotent, acks=all: a send resolves only when every in-sync replica has the records, and broker-side sequence
 * numbers drop the copies a retried request would otherwise write. Retries are bounded (kafkajs warns about that
 * once) so an outage fails sends instead of queueing them forever; callers re-send the same event ids, which the
 * projection deduplicates.
 *
 * After a failed send the producer is replaced. kafkajs rolls back the sequence numbers of a request that failed;
 * if Kafka had written it after all, the next, different records would reuse those numbers and be acknowledged
 * as duplicates without being written. A new producer id starts a fresh sequence.
 */
export class DurableProducer implements Pick<Producer, 'send'> {
  private current!: { producer: Producer; ready: Promise<void> };

  constructor(private readonly kafka: Pick<Kafka, 'producer'>) {
    this.replace();
  }

  private replace(): void {
    const producer = this.kafka.producer(OPTIONS);
    const ready = producer.connect();
    ready.catch(() => undefined);
    this.current = { producer, ready };
  }

  /** Resolves once connected. A failed attempt is replaced by a new one, so a caller can call again until Kafka answers. */
  async connect(): Promise<void> {
    const { producer, ready } = this.current;
    try {
      await ready;
    } catch (err) {
      this.retire(producer);
      throw err;
    }
  }

  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    const { producer, ready } = this.current;
    try {
      await ready;
      return await producer.send(record);
    } catch (err) {
      this.retire(producer);
      throw err;
    }
  }

  /** Replaces a producer that failed, once, however many callers saw it fail. */
  private retire(producer: Producer): void {
    if (this.current.producer !== producer) return;
    this.replace();
    producer.disconnect().catch(() => undefined);
  }

  disconnect(): Promise<void> {
    return this.current.producer.disconnect();
  }
}
