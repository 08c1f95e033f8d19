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
  type DeliveryJob,
  type HeldReplay,
  type Logger,
  type PartitionRange,
  type TopicRecord,
} from '@audit/shared';
import { paceWaitMs } from '../domain/replay-pace.js';
import { StoppingError } from './persistently.js';

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
  /** How long after its window's end a replay may begin (docs/webhooks.md "Replays"). */
  settleMs: number;
  clock: Clock;
  logger: Logger;
}

// A replay is held this long past its last renewal; renewed every second while its holder lives.
const LEASE_MS = 30_000;
// Progress is recorded, and the lease renewed, this often.
const PROGRESS_MS = 1000;
// How often an idle runner looks for a replay to run.
const POLL_MS = 1000;
// A read that gets no record for this long fails (a broker gone), and the replay is taken up again later.
const READ_IDLE_MS = 20_000;
// A replay taken up this often without ending has failed for good: the endpoint may be replayed again.
const MAX_ATTEMPTS = 10;
const SEND_CHUNK = 500;

/** The replay was taken over (its lease ran out) or deleted with its endpoint: its holder stops. */
class LostReplayError extends Error {
  override name = 'LostReplayError';
}

/** The audit topic's partition that holds a tenant's events: the producers' partitioner, by the tenant key. */
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
 * tenant's partition of the audit topic over the window, every matching event written since the endpoint's
 * creation handed on as a replayed delivery, paced, with its progress recorded as it goes.
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
    if (held.attempts > MAX_ATTEMPTS) {
      await replays.finish(deps.pool, held, 'failed', `Taken up ${MAX_ATTEMPTS} times without ending.`);
      return;
    }
    // Taken over: on from the first record not handed on, in the partition it began in. New: the window, found
    // by record time, in the tenant's partition.
    const partition = held.partition ?? (await tenantPartition(deps, held.tenantId));
    const range: PartitionRange | undefined =
      held.nextOffset !== null && held.endOffset !== null
        ? { topic: deps.auditTopic, partition, from: held.nextOffset, to: held.endOffset }
        : (await replayRanges(deps.admin, deps.auditTopic, held.since, held.until, [partition]))[0];
    if (!range) throw new Error(`the audit topic has no partition ${partition}`);
    // What the endpoint would have been sent: only events written since it was created, as "Matching" says.
    const target = {
      endpointId: endpoint.id,
      tenantId: held.tenantId,
      filter: endpoint.event_filter,
      since: Math.max(held.since, endpoint.created_at.getTime()),
      until: held.until,
    };
    const progress = {
      recordsRead: held.recordsRead,
      deliveriesQueued: held.deliveriesQueued,
      partition,
      nextOffset: range.from,
      endOffset: range.to,
    };
    // The lease is renewed (with the progress) every second whatever the read is doing; nothing is sent by a
    // holder whose last renewal is older than half the lease, which another dispatcher may then have taken.
    let renewed = deps.clock();
    let lost = false;
    const renew = async () => {
      if (!(await replays.progress(deps.pool, held, LEASE_MS, progress))) lost = true;
      else renewed = deps.clock();
    };
    const check = () => {
      if (stopping) throw new StoppingError('replay: stopped');
      if (lost || deps.clock() - renewed > LEASE_MS / 2) throw new LostReplayError();
    };
    await renew();
    check();
    let renewing = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(renew).catch((err: unknown) => {
        log.warn({ err: loggableError(err) }, 'webhook replay progress not recorded');
      });
    }, PROGRESS_MS);

    const started = deps.clock();
    let sentSinceStart = 0;
    // Deliveries handed on together: about ten hand-offs a second at the pace.
    const step = Math.max(1, Math.min(SEND_CHUNK, Math.ceil(deps.perSecond / 10)));
    const send = async (jobs: DeliveryJob[], heartbeat: () => Promise<void>) => {
      // Paced: a replay of a busy month neither floods the retry tier nor the endpoint.
      const wait = paceWaitMs(sentSinceStart + jobs.length, deps.clock() - started, deps.perSecond);
      if (wait > 0) await sleep(wait);
      check();
      await deps.producer.send({
        topic: deps.firstRetryTopic,
        messages: jobs.map((job) => ({ key: job.endpointId, value: job.body, headers: jobHeaders(job) })),
      });
      sentSinceStart += jobs.length;
      progress.deliveriesQueued += jobs.length;
      await heartbeat();
    };
    const take = async (records: TopicRecord[], heartbeat: () => Promise<void>) => {
      let jobs: DeliveryJob[] = [];
      let examined = 0;
      // Every record up to this one handed on: a holder that takes over goes on from the next.
      const handedOn = (upTo: TopicRecord) => {
        progress.recordsRead += examined;
        examined = 0;
        progress.nextOffset = BigInt(upTo.offset) + 1n;
      };
      for (const record of records) {
        check();
        examined += 1;
        const job = replayJob(deps.codec, record, target, deps.clock());
        if (job) jobs.push(job);
        if (jobs.length === step) {
          await send(jobs, heartbeat);
          jobs = [];
          handedOn(record);
        }
      }
      if (jobs.length > 0) await send(jobs, heartbeat);
      handedOn(records.at(-1)!);
    };
    try {
      await streamRanges(deps.kafka, [range], { take, idleMs: READ_IDLE_MS });
      clearInterval(timer);
      await renewing;
      progress.nextOffset = range.to;
      await renew();
      check();
      await replays.finish(deps.pool, held, 'succeeded', null);
      log.info({ deliveries: progress.deliveriesQueued }, 'webhook replay done');
    } catch (err) {
      clearInterval(timer);
      await renewing;
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
        held = await replays.claim(deps.pool, LEASE_MS, deps.settleMs);
        if (held) await run(held);
      } catch (err) {
        // Left running: after its lease it is taken up again (here or elsewhere), from where it got.
        deps.logger.warn(
          { err: loggableError(err), replay_id: held?.id },
          'webhook replay failed; it will be taken up again',
        );
      }
      if (!held && !stopping) await sleep(POLL_MS);
    }
  }

  return {
    start(): void {
      loop = runLoop();
    },
    /** Resolves once the replay under way (if any) has stopped; the next dispatcher goes on with it. */
    async stop(): Promise<void> {
      stopping = true;
      await loop;
    },
  };
}
