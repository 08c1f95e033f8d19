import type { ConsumerConfig, EachMessagePayload, Kafka } from 'kafkajs';
import type pg from 'pg';
import { DecodeError, type Codec } from '@audit/shared/contract';
import { exportJobsRepository as jobs, type ExportJobRequest } from '@audit/shared/export-jobs';
import { sleep, whenGivenUp, type Logger } from '@audit/shared/platform';

export interface JobConsumerDeps {
  kafka: Kafka;
  consumer: ConsumerConfig;
  topic: string;
  /** Jobs run at once: one per partition at most. */
  concurrency: number;
  codec: Codec<ExportJobRequest>;
  pool: pg.Pool;
  run: (request: ExportJobRequest) => Promise<void>;
  logger: Logger;
  /** How long a request may wait for its job's row (the gateway publishes it before it commits). */
  rowWaitMs: number;
  /** Told when kafkajs has stopped the consumer for good (whenGivenUp). */
  onGivenUp: (err: Error) => void;
  stopping: () => boolean;
}

export interface JobConsumer {
  /** True once the group gave this consumer its partitions: readiness waits for it. */
  joined(): boolean;
  /** Leaves the group; a job in progress is abandoned with its record uncommitted, to run again elsewhere. */
  stop(): Promise<void>;
}

// A long job keeps its group membership by heartbeats at about this interval.
const HEARTBEAT_MS = 3000;

/**
 * The exporter's consumer of the job request topic. A record's offset is committed only once its job has ended
 * (kafkajs commits an eachMessage's offset after it resolves): an exporter killed mid-job leaves the record to
 * whoever takes its partition, and the job runs again there.
 */
export async function startJobConsumer(deps: JobConsumerDeps): Promise<JobConsumer> {
  const consumer = deps.kafka.consumer(deps.consumer);
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
  whenGivenUp(consumer, deps.onGivenUp, deps.stopping);
  try {
    await consumer.subscribe({ topics: [deps.topic], fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: deps.concurrency,
      eachMessage: (payload) => handle(deps, payload),
    });
  } catch (err) {
    // A start tried again (Kafka not answering yet) takes a new consumer: this one leaves nothing behind.
    await consumer.disconnect().catch(() => undefined);
    throw err;
  }
  return { joined: () => joined, stop: () => consumer.disconnect() };
}

async function handle(deps: JobConsumerDeps, { message, partition, heartbeat }: EachMessagePayload) {
  const log = deps.logger.child({ topic: deps.topic, partition, offset: message.offset });
  let request: ExportJobRequest;
  try {
    request = deps.codec.decode(message.value ?? Buffer.alloc(0));
  } catch (err) {
    // Only the gateway writes this topic, so this is a bug, not a job: said loudly, and passed over.
    if (!(err instanceof DecodeError)) throw err;
    log.error({ err: err.message }, 'export job request cannot be decoded; skipped');
    return;
  }
  if (!(await rowCommitted(deps, request))) {
    // The gateway's transaction did not commit: the client was told the job failed, and it does not exist.
    log.warn({ job_id: request.jobId }, 'export job request without its job; skipped');
    return;
  }
  // A heartbeat refused during a rebalance is not the job's failure: the group tells this member what it lost.
  const beating = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
  try {
    await deps.run(request);
  } finally {
    clearInterval(beating);
  }
}

/** Whether the job's row exists, waiting a little for the gateway's commit that follows its publish. */
async function rowCommitted(deps: JobConsumerDeps, request: ExportJobRequest): Promise<boolean> {
  const deadline = Date.now() + deps.rowWaitMs;
  for (;;) {
    if (await jobs.get(deps.pool, request.tenantId, request.jobId)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(250);
  }
}
