import type { ConsumerConfig, Kafka } from 'kafkajs';
import { whenGivenUp } from '@audit/shared/platform';

export interface JobConsumerDeps {
  kafka: Kafka;
  consumer: ConsumerConfig;
  topic: string;
  /** Told of every job request: the job itself waits in Postgres, for whichever exporter takes it. */
  wake: () => void;
  /** Told when kafkajs has stopped the consumer for good (whenGivenUp). */
  onGivenUp: (err: Error) => void;
  stopping: () => boolean;
}

export interface JobConsumer {
  /** True once the group gave this consumer its partitions: readiness waits for it. */
  joined(): boolean;
  stop(): Promise<void>;
}

/**
 * The exporter's consumer of the job request topic (docs/exports.md "Fair share"): a request only wakes the
 * scheduler, so a job starts without waiting for the next look at the queue. The queue is the jobs' rows in
 * Postgres, written with the request in the gateway's transaction, so a record's offset is committed at once.
 */
export async function startJobConsumer(deps: JobConsumerDeps): Promise<JobConsumer> {
  const consumer = deps.kafka.consumer(deps.consumer);
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
  whenGivenUp(consumer, deps.onGivenUp, deps.stopping);
  try {
    await consumer.subscribe({ topics: [deps.topic], fromBeginning: false });
    await consumer.run({ eachMessage: async () => deps.wake() });
  } catch (err) {
    // A start tried again (Kafka not answering yet) takes a new consumer: this one leaves nothing behind.
    await consumer.disconnect().catch(() => undefined);
    throw err;
  }
  return { joined: () => joined, stop: () => consumer.disconnect() };
}
