import type { Admin, Kafka, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import type pg from 'pg';
import {
  jobHeaders,
  loggableError,
  replayJob,
  replayRanges,
  sleep,
  streamRanges,
  webhookReplaysRepository as replays,
  webhooksRepository,
  type AuditEventRecord,
  type Clock,
  type Codec,
  type HeldReplay,
  type Logger,
  type PartitionRange,
  type TopicRecord,
} from '@audit/shared';
import { paceWaitMs } from '../domain/replay-pace.js';

export interface ReplayRunnerDeps {
  pool: pg.Pool;
  kafka: Kafka;
  admin: Pick<Admin, 'fetchTopicOffsetsByTimestamp' | 'fetchTopicMetadata'>;
  producer: Pick<Producer, 'send'>;
  codec: Codec<AuditEventRecord>;
  auditTopic: string;
  /** Where replayed deliveries go: the first retry tier, due at once. */
  firstRetryTopic: string;
  /** Deliveries a replay hands on a second at most. */
  perSecond: number;
  clock: Clock;
  logger: Logger;
}

// A replay is held this long past its last progress; a dispatcher that dies leaves it to another after that.
const LEASE_MS = 30_000;
// Progress is recorded (and the lease renewed) at least this often.
const PROGRESS_MS = 1000;
// How often an idle runner looks for a replay to run.
const POLL_MS = 1000;
// A read that gets no record for this long fails (a broker gone), and the replay is taken up again later.
const READ_IDLE_MS = 60_000;
const SEND_CHUNK = 500;

/** The replay was taken over (its lease ran out) or deleted with its endpoint: its holder stops. */
class LostReplayError extends Error {
  override name = 'LostReplayError';
}

/** The process is stopping: the replay is let go, and the next dispatcher to look goes on with it. */
class StoppingError extends Error {
  override name = 'StoppingError';
}

/** The audit topic's partition that holds a tenant's events (the producers' partitioner, by the tenant key). */
async function tenantPartition(deps: ReplayRunnerDeps, tenantId: string): Promise<number> {
  const { topics } = await deps.admin.fetchTopicMetadata({ topics: [deps.auditTopic] });
  return Partitioners.DefaultPartitioner()({
    topic: deps.auditTopic,
    partitionMetadata: topics[0]!.partitions,
    message: { key: tenantId, value: null },
  });
}

/**
 * Runs the replays endpoints' owners ask for (docs/webhooks.md "Replays"), one at a time per process: the
 * tenant's partition of the audit topic over the window, every matching event handed on as a replayed delivery,
 * paced, with its progress recorded as it goes.
 */
export function replayRunner(deps: ReplayRunnerDeps) {
  let stopping = false;
  let loop: Promise<void> | undefined;

  async function run(held: HeldReplay): Promise<void> {
    const log = deps.logger.child({ replay_id: held.id, endpoint_id: held.endpointId });
    const endpoint = await webhooksRepository.find(deps.pool, held.endpointId);
    if (!endpoint?.active) {
      await replays.finish(deps.pool, held, 'failed', 'The endpoint is inactive.');
      return;
    }
    const partition = await tenantPartition(deps, held.tenantId);
    // Taken over: on from the first record not handed on yet. New: the window, found by record time.
    const range: PartitionRange | undefined =
      held.nextOffset !== null && held.endOffset !== null
        ? { topic: deps.auditTopic, partition, from: held.nextOffset, to: held.endOffset }
        : (await replayRanges(deps.admin, deps.auditTopic, held.since, held.until, [partition]))[0];
    if (!range) throw new Error(`the audit topic has no partition ${partition}`);
    const target = {
      endpointId: endpoint.id,
      tenantId: held.tenantId,
      filter: endpoint.event_filter,
      since: held.since,
      until: held.until,
    };
    const progress = {
      recordsRead: held.recordsRead,
      deliveriesQueued: held.deliveriesQueued,
      nextOffset: range.from,
      endOffset: range.to,
    };
    const started = deps.clock();
    let sentSinceStart = 0;
    // Deliveries handed on together: about ten hand-offs a second at the pace.
    const step = Math.max(1, Math.min(SEND_CHUNK, Math.ceil(deps.perSecond / 10)));
    let reported = 0;
    const report = async () => {
      if (!(await replays.progress(deps.pool, held, LEASE_MS, progress))) throw new LostReplayError();
      reported = deps.clock();
    };
    await report();
    const take = async (records: TopicRecord[], heartbeat: () => Promise<void>) => {
      for (let i = 0; i < records.length; i += SEND_CHUNK) {
        if (stopping) throw new StoppingError();
        const chunk = records.slice(i, i + SEND_CHUNK);
        const jobs = chunk.flatMap((record) => replayJob(deps.codec, record, target, deps.clock()) ?? []);
        for (let j = 0; j < jobs.length; j += step) {
          const part = jobs.slice(j, j + step);
          // Paced: a replay of a busy month neither floods the retry tier nor the endpoint.
          const wait = paceWaitMs(sentSinceStart + part.length, deps.clock() - started, deps.perSecond);
          if (wait > 0) await sleep(wait);
          if (stopping) throw new StoppingError();
          await deps.producer.send({
            topic: deps.firstRetryTopic,
            messages: part.map((job) => ({ key: job.endpointId, value: job.body, headers: jobHeaders(job) })),
          });
          sentSinceStart += part.length;
          progress.deliveriesQueued += part.length;
          if (deps.clock() - reported >= PROGRESS_MS) {
            await report();
            await heartbeat();
          }
        }
        progress.recordsRead += chunk.length;
        progress.nextOffset = BigInt(chunk.at(-1)!.offset) + 1n;
        if (deps.clock() - reported >= PROGRESS_MS) {
          await report();
          await heartbeat();
        }
      }
    };
    try {
      await streamRanges(deps.kafka, [range], { take, idleMs: READ_IDLE_MS });
      progress.nextOffset = range.to;
      await report();
      await replays.finish(deps.pool, held, 'succeeded', null);
      log.info({ deliveries: progress.deliveriesQueued }, 'webhook replay done');
    } catch (err) {
      if (err instanceof LostReplayError) return;
      // Stopping: the next dispatcher to look goes on from where this one got, without waiting for the lease.
      if (err instanceof StoppingError) return replays.release(deps.pool, held);
      throw err;
    }
  }

  async function runLoop(): Promise<void> {
    while (!stopping) {
      let held: HeldReplay | null = null;
      try {
        held = await replays.claim(deps.pool, LEASE_MS);
        if (held) await run(held);
      } catch (err) {
        // Left running: after its lease it is taken up again (here or elsewhere), from where it got.
        deps.logger.warn(
          { err: loggableError(err), replay_id: held?.id },
          'webhook replay failed; it will resume',
        );
      }
      if (!held && !stopping) await sleep(POLL_MS);
    }
  }

  return {
    start(): void {
      loop = runLoop();
    },
    /** Resolves once the replay under way (if any) has stopped; it resumes elsewhere after its lease. */
    async stop(): Promise<void> {
      stopping = true;
      await loop;
    },
  };
}
