import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { loggableError, sleep, whenGivenUp, type Logger } from '@audit/shared/platform';
import type { KeyedLanes } from '../domain/keyed-lanes.js';
import { OffsetTracker } from '../domain/offset-tracker.js';

const HEARTBEAT_EVERY_MS = 3000;

export interface MessageContext {
  topic: string;
  partition: number;
  message: KafkaMessage;
  /** Pauses this partition until `resume` is called; the message stays unresolved and is read again then. */
  pause: () => () => void;
  /** Starts `pieces` pieces of work for this message; call the result once per finished piece. */
  begin: (pieces: number) => () => void;
}

export interface TrackedConsumerOptions {
  consumer: Consumer;
  topics: readonly string[];
  /** Whether a topic's partitions without a committed offset are read from their beginning (else from their end). */
  fromBeginning: (topic: string) => boolean;
  concurrency: number;
  lanes: KeyedLanes;
  maxInFlight: number;
  commitEveryMs: number;
  /** How long a stop lets running work finish. */
  graceMs: number;
  logger: Logger;
  /** Told when kafkajs has stopped the consumer for good (whenGivenUp). */
  onGivenUp: (err: Error) => void;
  /** False leaves the message unresolved and ends the batch (a paused partition). */
  handle: (ctx: MessageContext) => Promise<boolean>;
}

/**
 * A consumer whose messages start work that finishes later and out of order. Reading goes on while work runs
 * (bounded by `maxInFlight`); offsets are committed only up to the first message whose work is unfinished.
 */
export async function runTrackedConsumer(opts: TrackedConsumerOptions) {
  const { consumer } = opts;
  // First, before anything is set up: this is the step that fails while Kafka is unreachable (run() itself rides
  // out connection failures by restarting), and a start tried again takes a new consumer.
  try {
    for (const topic of opts.topics)
      await consumer.subscribe({ topic, fromBeginning: opts.fromBeginning(topic) });
  } catch (err) {
    await consumer.disconnect().catch(() => undefined);
    throw err;
  }
  const tracker = new OffsetTracker();
  let stopping = false;
  let joined = false;
  // kafkajs has left the group and disconnected before it says so: nothing can be paused or committed then.
  let givenUp = false;
  whenGivenUp(
    consumer,
    (err) => {
      givenUp = true;
      opts.onGivenUp(err);
    },
    () => stopping,
  );
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    joined = true;
    const owned = payload.memberAssignment;
    tracker.retainOnly((topic, partition) => owned[topic]?.includes(partition) ?? false);
  });
  const commit = async () => {
    const due = tracker.commitsDue();
    if (due.length === 0) return;
    try {
      await consumer.commitOffsets(due);
      tracker.committedTo(due);
    } catch (err) {
      opts.logger.warn({ err: loggableError(err) }, 'offset commit failed; will retry');
    }
  };
  const timer = setInterval(() => void commit(), opts.commitEveryMs);
  const run = consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: opts.concurrency,
    eachBatch: async ({ batch, resolveOffset, heartbeat, pause, isRunning, isStale }: EachBatchPayload) => {
      const { topic, partition } = batch;
      for (const message of batch.messages) {
        if (stopping || !isRunning() || isStale()) return;
        while (opts.lanes.size >= opts.maxInFlight) {
          await Promise.race([opts.lanes.whenBelow(opts.maxInFlight), sleep(HEARTBEAT_EVERY_MS)]);
          await heartbeat();
        }
        const begin = (pieces: number) => tracker.begin(topic, partition, message.offset, pieces);
        if (!(await opts.handle({ topic, partition, message, pause, begin }))) return;
        resolveOffset(message.offset);
      }
      await heartbeat();
    },
  });
  await run.catch(async (err: unknown) => {
    clearInterval(timer);
    await consumer.disconnect().catch(() => undefined);
    throw err;
  });

  return {
    /** True once the group gave this consumer its partitions: readiness waits for it. */
    joined: () => joined,
    /**
     * Stops reading, lets running work finish (up to `graceMs`), commits what finished, then leaves the group. One
     * kafkajs gave up on has left already: what it did not commit is read again by the next (at least once).
     */
    async stop(): Promise<void> {
      stopping = true;
      if (!givenUp) {
        // Paused, not stopped: stopping would leave the group, and the finished work could no longer be committed.
        consumer.pause(opts.topics.map((topic) => ({ topic })));
        await Promise.race([opts.lanes.whenBelow(1), sleep(opts.graceMs)]);
      }
      clearInterval(timer);
      if (!givenUp) await commit();
      await consumer.disconnect();
    },
  };
}

export type TrackedConsumer = Awaited<ReturnType<typeof runTrackedConsumer>>;
