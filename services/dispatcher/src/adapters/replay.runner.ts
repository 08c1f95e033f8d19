import type { Admin, Kafka, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import type pg from 'pg';
import { generationTopicStates } from '@audit/shared/audit-topic';
import { type AuditEventRecord, type Clock, type Codec } from '@audit/shared/contract';
import { loggableError, sleep, streamRanges, type Logger, type PartitionRange } from '@audit/shared/platform';
import type { RetentionFilter } from '@audit/shared/retention';
import {
  replayRanges,
  webhookReplaysRepository as replays,
  webhooksRepository,
  type HeldReplay,
  type ReplayProgress,
} from '@audit/shared/webhooks';
import { StoppingError } from './persistently.js';
import { LEASE_MS, LostReplayError, replayLease } from './replay-lease.js';
import { replayTaker } from './replay-taker.js';

export interface ReplayRunnerDeps {
  pool: pg.Pool;
  kafka: Kafka;
  admin: Pick<
    Admin,
    'fetchTopicOffsetsByTimestamp' | 'fetchTopicMetadata' | 'listTopics' | 'describeConfigs'
  >;
  producer: Pick<Producer, 'send'>;
  codec: Codec<AuditEventRecord>;
  /** The audit topic's first generation: the later ones are named after it (docs/topic-growth.md). */
  auditTopic: string;
  /** Where replayed deliveries go: the first retry tier, due at once. */
  firstRetryTopic: string;
  /** Deliveries a replay hands on a second at most. */
  perSecond: number;
  /** How long after its window's end a replay may begin (docs/webhooks.md "Replays"). */
  settleMs: number;
  /** How long a replay runs before its holder lets go of it and takes the next in turn ("Fair share"). */
  sliceMs: number;
  /** Leaves out what the tenant's retention purges removed; a failed read fails the slice, taken up again. */
  retained: RetentionFilter;
  clock: Clock;
  logger: Logger;
}

// How often an idle runner looks for a replay to run.
const POLL_MS = 1000;
// A read that gets no record for this long fails (a broker gone), and the replay is taken up again later.
const READ_IDLE_MS = 20_000;
// A replay taken up this often without getting further has failed for good: the endpoint may be replayed again.
const MAX_ATTEMPTS = 10;
/** The partition of a generation of the audit topic that holds a tenant's events: the producers' partitioner. */
async function tenantPartition(deps: ReplayRunnerDeps, topic: string, tenantId: string): Promise<number> {
  const { topics } = await deps.admin.fetchTopicMetadata({ topics: [topic] });
  return Partitioners.DefaultPartitioner()({
    topic,
    partitionMetadata: topics[0]!.partitions,
    message: { key: tenantId, value: null },
  });
}

/** The holder's slice of a replay is over: it lets go, and the next in turn is taken ("Fair share"). */
class SliceOverError extends Error {
  override name = 'SliceOverError';
}

/**
 * Runs the replays endpoints' owners ask for (docs/webhooks.md "Replays"), one at a time per process, a slice of
 * time each in turn: the tenant's partition of each generation of the audit topic over the window clipped to the
 * endpoint's creation, oldest first, every matching event handed on as a replayed delivery, paced, with its
 * progress recorded as it goes.
 */
export function replayRunner(deps: ReplayRunnerDeps) {
  let stopping = false;
  let loop: Promise<void> | undefined;
  // Ends a read that waits on Kafka at once when the process stops.
  const abort = new AbortController();

  async function run(held: HeldReplay): Promise<void> {
    const log = deps.logger.child({ replay_id: held.id, endpoint_id: held.endpointId });
    const endpoint = await webhooksRepository.find(deps.pool, held.endpointId);
    if (!endpoint?.active) {
      await replays.finish(deps.pool, held, 'failed', 'The endpoint is inactive.');
      return;
    }
    if (held.attempts > MAX_ATTEMPTS) {
      await replays.finish(
        deps.pool,
        held,
        'failed',
        `Taken up ${MAX_ATTEMPTS} times without getting further.`,
      );
      return;
    }
    // Taken over: on from the first record not handed on, in the generation and partition it had got to. New:
    // the window, found by record time, in the tenant's partition of each generation.
    const generations = (await generationTopicStates(deps.admin, deps.auditTopic)).map((g) => g.topic);
    const resumed = held.nextOffset !== null && held.endOffset !== null && held.partition !== null;
    const first = resumed ? generations.indexOf(held.topic ?? deps.auditTopic) : 0;
    if (first < 0) throw new Error(`the audit topic has no generation ${held.topic}`);
    // Nothing written before the endpoint existed is sent ("Matching"), so nothing before it is read either.
    const target = {
      endpointId: endpoint.id,
      tenantId: held.tenantId,
      filter: endpoint.event_filter,
      patients: endpoint.patient_filter,
      since: Math.max(held.since, endpoint.created_at.getTime()),
      until: held.until,
    };
    if (target.since >= target.until) {
      await replays.finish(deps.pool, held, 'succeeded', null);
      return;
    }
    const progress: ReplayProgress = {
      recordsRead: held.recordsRead,
      deliveriesQueued: held.deliveriesQueued,
      topic: held.topic,
      partition: held.partition,
      nextOffset: held.nextOffset,
      endOffset: held.endOffset,
    };
    const rangeOf = async (topic: string): Promise<PartitionRange> => {
      if (resumed && topic === generations[first])
        return { topic, partition: held.partition!, from: held.nextOffset!, to: held.endOffset! };
      const partition = await tenantPartition(deps, topic, held.tenantId);
      const range = (await replayRanges(deps.admin, topic, target.since, target.until, [partition]))[0];
      if (!range) throw new Error(`${topic} has no partition ${partition}`);
      return range;
    };
    const lease = replayLease({ ...deps, held, progress, stopping: () => stopping, logger: log });
    // Once its slice is over, the replay makes way for another waiting, if any (asked as the slice ends, and
    // a slice later again while none waits), and only once it got further: a replay whose reads are slow still
    // moves on.
    let sliceEnds = deps.clock() + deps.sliceMs;
    let makeWay = false;
    let asking = false;
    let sliceFrom: bigint | null | undefined;
    const askOthers = () => {
      if (asking || makeWay || deps.clock() < sliceEnds) return;
      asking = true;
      replays
        .othersWaiting(deps.pool, held.id, deps.settleMs)
        .then((waiting) => {
          makeWay = waiting;
          if (!waiting) sliceEnds = deps.clock() + deps.sliceMs;
        })
        .catch(() => undefined)
        .finally(() => (asking = false));
    };
    const check = () => {
      lease.check();
      sliceFrom ??= progress.nextOffset;
      askOthers();
      if (makeWay && progress.nextOffset !== sliceFrom) throw new SliceOverError();
    };
    try {
      await lease.begin();
      const take = replayTaker({ ...deps, target, progress, check });
      for (const topic of generations.slice(first)) {
        const range = await rangeOf(topic);
        Object.assign(progress, {
          topic,
          partition: range.partition,
          nextOffset: range.from,
          endOffset: range.to,
        });
        await streamRanges(deps.kafka, [range], { take, idleMs: READ_IDLE_MS, signal: abort.signal });
        progress.nextOffset = range.to;
      }
      await lease.end(true);
      await replays.finish(deps.pool, held, 'succeeded', null);
      log.info({ deliveries: progress.deliveriesQueued }, 'webhook replay done');
    } catch (err) {
      await lease.end();
      if (err instanceof LostReplayError) return;
      // Stopping, or the slice is over: the next dispatcher to look goes on from where this one got, without
      // waiting for the lease.
      if (err instanceof StoppingError || err instanceof SliceOverError) {
        return replays.release(deps.pool, held, progress);
      }
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
      abort.abort(new StoppingError('replay: stopped'));
      await loop;
    },
  };
}
