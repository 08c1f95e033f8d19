import type { Admin, Kafka } from 'kafkajs';
import { topicRetentionMs } from '@audit/shared/audit-topic';
import { sleep, type ClickHouseClient, type ClusterGuard, type SchemaWriter } from '@audit/shared/platform';
import {
  existingGenerations,
  projectionTables,
  replayGroupId,
  runningInserts,
  type ProjectionState,
  type ProjectionStateStore,
} from '@audit/shared/projection';
import {
  copyBefore,
  countEvents,
  createGeneration,
  dropGeneration,
} from '../adapters/projection-tables.admin.js';
import { replayShortfalls, type PartitionReach } from '../domain/replay-reach.js';
import { CliError } from './cli-error.js';

const POLL_MS = 250;
// Writes are held at most this long while the new generation catches up with the live one; past it the replay
// is given up (and projectors resume the live generation on their own a few seconds later).
const HANDOVER_MS = 60_000;
const HANDOVER_SAFETY_MS = 5000;
// The build is close enough to hold writes once this few records are left to replay.
const CATCH_UP_RECORDS = 2000;

export interface ReplayProjectionContext {
  kafka: Kafka;
  /** Every generation of the audit topic (docs/topic-growth.md): the replay reads them all. */
  auditTopics: readonly string[];
  clickhouse: ClickHouseClient;
  database: string;
  /** The projection's tables are made and dropped through it, on every node of a cluster. */
  schema: SchemaWriter;
  /** On a cluster: copies are quorum inserts, and inserts still running are looked for on every replica. */
  guard: ClusterGuard;
  store: ProjectionStateStore;
  projectorGroupId: string;
  operator: string;
  now: () => number;
  progress?: (done: number, total: number) => void;
  note?: (text: string) => void;
}

export interface ReplayProjectionOptions {
  since?: number;
  /** How long the old generation stays after the switch, for reads that began on it. */
  dropOldAfterMs: number;
}

/** The group's members, once it is stable (none while it rebalances: then nobody can be said to have confirmed). */
async function members(admin: Admin, groupId: string): Promise<string[]> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  return group?.state === 'Stable' ? group.members.map((m) => m.memberId) : [];
}

/** Every member of the projectors' group confirmed `phase` since it began. */
async function allConfirmed(
  ctx: ReplayProjectionContext,
  admin: Admin,
  target: number,
  phase: 'pause' | 'drain',
  since: number,
) {
  const [present, acked] = await Promise.all([
    members(admin, ctx.projectorGroupId),
    ctx.store.acked(target, phase, since),
  ]);
  return present.length > 0 && present.every((m) => acked.has(m));
}

/** A topic partition as one key. */
const key = (topic: string, partition: number) => `${topic}:${partition}`;

/** The group's committed offsets of every partition of the topics, by key (-1: none). */
async function committed(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<Map<string, bigint>> {
  const offsets = await admin.fetchOffsets({ groupId, topics: [...topics] });
  return new Map(
    offsets.flatMap((t) => t.partitions.map((p) => [key(t.topic, p.partition), BigInt(p.offset)])),
  );
}

/** The end offset of every partition of the topics, by key. */
async function ends(admin: Admin, topics: readonly string[]): Promise<Map<string, bigint>> {
  const all = await Promise.all(
    topics.map(async (topic) =>
      (await admin.fetchTopicOffsets(topic)).map((p) => [key(topic, p.partition), BigInt(p.high)] as const),
    ),
  );
  return new Map(all.flat());
}

/** Where a replay from the start, or from `since`, would begin in each partition of the topics, and what they hold. */
async function reachOf(admin: Admin, topics: readonly string[], since: number | undefined) {
  const reach: PartitionReach[] = [];
  for (const topic of topics) {
    const [offsets, retentionMs] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      topicRetentionMs(admin, topic),
    ]);
    const found =
      since === undefined
        ? null
        : new Map(
            (await admin.fetchTopicOffsetsByTimestamp(topic, since)).map((p) => [p.partition, p.offset]),
          );
    for (const p of offsets) {
      // kafkajs gives the end offset where no record is at `since` or later.
      const at = found?.get(p.partition);
      reach.push({
        topic,
        partition: p.partition,
        low: BigInt(p.low),
        high: BigInt(p.high),
        atSince: at === undefined ? null : BigInt(at),
        retentionMs,
      });
    }
  }
  return reach;
}

async function waitUntil(what: string, deadline: number, now: () => number, check: () => Promise<boolean>) {
  while (!(await check())) {
    if (now() > deadline) throw new CliError(`gave up waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

/**
 * Rebuilds the projection from the audit topic into a new generation of tables, while reads go on from the live
 * one, then switches (see docs/operations.md "Replaying the projection"). The projectors do the replaying, in a
 * consumer group of the new generation; this command creates the tables, moves the state through its phases,
 * waits for each, and reports. Any failure before the switch gives the replay up: the live generation stays.
 */
export async function replayProjection(ctx: ReplayProjectionContext, opts: ReplayProjectionOptions) {
  const started = ctx.now();
  const topics = ctx.auditTopics;
  const admin = ctx.kafka.admin();
  await admin.connect();
  try {
    if ((await members(admin, ctx.projectorGroupId)).length === 0) {
      throw new CliError(
        `no projector is running (group ${ctx.projectorGroupId}): the projectors do the replay`,
      );
    }
    const state = await ctx.store.read();
    if (state.phase !== 'live') {
      throw new CliError(
        `a replay into generation ${state.target} is in progress (${state.phase}); if its command died, run ops replay projection --abort`,
      );
    }
    // A replay that began where the topic's retention deleted records would build a projection without them.
    const shortfalls = replayShortfalls(await reachOf(admin, topics, opts.since), opts.since, ctx.now());
    if (shortfalls.length > 0) {
      throw new CliError(
        `the audit topic no longer holds every record this replay would read:\n  ${shortfalls.join('\n  ')}\n` +
          'replay with a later --since: what was ingested before it is copied from the live projection ' +
          '(docs/operations.md "Topic retention")',
        2,
      );
    }
    const live = projectionTables(state.live);
    const generations = await existingGenerations(ctx.clickhouse, ctx.database);
    const target = Math.max(state.live, ...generations) + 1;
    // Claimed first: a second command now finds a replay in progress.
    await ctx.store.write({ phase: 'prepare', live: state.live, target }, ctx.operator, ctx.now());
    let switched = false;
    try {
      // Left by a replay given up, or by one whose command died after its switch: nothing reads or writes them.
      for (const g of generations.filter((g) => g !== state.live)) await dropGeneration(ctx.schema, g);
      const group = replayGroupId(ctx.projectorGroupId, target);
      const next = await createGeneration(ctx.clickhouse, ctx.schema, live, target, ctx.now);
      ctx.note?.(
        `building generation ${target} (${next.events}) while generation ${state.live} serves reads`,
      );
      if (opts.since !== undefined) await copyBefore(ctx.clickhouse, live, next, opts.since, ctx.guard);
      await admin.deleteGroups([group]).catch(() => undefined);
      const start = new Map<string, bigint>();
      for (const topic of topics) {
        const partitions =
          opts.since === undefined
            ? (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, offset: p.low }))
            : await admin.fetchTopicOffsetsByTimestamp(topic, opts.since);
        await admin.setOffsets({ groupId: group, topic, partitions });
        for (const p of partitions) start.set(key(topic, p.partition), BigInt(p.offset));
      }
      const from = [...start.values()].reduce((sum, o) => sum + o, 0n);
      await ctx.store.write({ phase: 'build', live: state.live, target }, ctx.operator, ctx.now());
      const buildStarted = ctx.now();
      await caughtUp(ctx, admin, group, start, from);

      const until = ctx.now() + HANDOVER_MS;
      const deadline = until - HANDOVER_SAFETY_MS;
      const held: ProjectionState = { phase: 'pause', live: state.live, target, until };
      const pausedAt = await ctx.store.write(held, ctx.operator, ctx.now());
      await waitUntil('the projectors to hold their writes', deadline, ctx.now, () =>
        allConfirmed(ctx, admin, target, 'pause', pausedAt),
      );
      // Nothing is written to the live generation any more, and all it holds came from records before the
      // topic's end now (a write can be stored before its offsets are committed: the end, not the commits).
      const liveEnd = await ends(admin, topics);
      await waitUntil('the replay to reach the live projection', deadline, ctx.now, async () => {
        const done = await committed(admin, group, topics);
        return [...liveEnd].every(([p, end]) => end === 0n || (done.get(p) ?? -1n) >= end);
      });
      const replayed = Number(
        [...(await committed(admin, group, topics)).values()].reduce((s, o) => s + (o > 0n ? o : 0n), 0n) -
          from,
      );
      const drainAt = await ctx.store.write({ ...held, phase: 'drain' }, ctx.operator, ctx.now());
      // Every replay consumer stopped, whoever ran it (also a process no longer in the live group), and none of
      // their inserts still runs: from the switch on, the live path is the target's only writer.
      await waitUntil('the replay consumers to stop', deadline, ctx.now, async () => {
        return (
          (await allConfirmed(ctx, admin, target, 'drain', drainAt)) &&
          (await groupGone(admin, group)) &&
          (await runningInserts(ctx.clickhouse, ctx.database, 'replay', ctx.guard)) === 0
        );
      });
      // The target must hold at least what the live generation does (a projector that lost a contract version
      // would have skipped records the live generation has): refused rather than switched to.
      const [before, after] = await Promise.all([
        countEvents(ctx.clickhouse, live),
        countEvents(ctx.clickhouse, next),
      ]);
      if (after < before) {
        throw new CliError(
          `generation ${target} holds ${after} events, fewer than the live ${before}: not switched`,
        );
      }
      if (ctx.now() > deadline) throw new CliError('the handover did not finish in time');
      await ctx.store.write({ phase: 'live', live: target }, ctx.operator, ctx.now());
      switched = true;
      const switchedAt = ctx.now();
      await afterSwitch(ctx, admin, group, state.live, opts.dropOldAfterMs);
      return {
        generation: target,
        previous: state.live,
        since: opts.since === undefined ? null : new Date(opts.since).toISOString(),
        records_replayed: replayed,
        events: await countEvents(ctx.clickhouse, next).catch(() => null),
        duration_ms: switchedAt - started,
        build_ms: pausedAt - buildStarted,
        writes_held_ms: switchedAt - pausedAt,
      };
    } catch (err) {
      // After the switch the new generation is the live one: nothing may undo it.
      if (!switched) await giveUp(ctx, state.live, target);
      throw err;
    }
  } finally {
    await admin.disconnect();
  }
}

/** Waits until the replay group is close to the topic's end, over every generation (progress on the way). */
async function caughtUp(
  ctx: ReplayProjectionContext,
  admin: Admin,
  group: string,
  start: ReadonlyMap<string, bigint>,
  from: bigint,
) {
  for (;;) {
    const [end, done] = await Promise.all([
      ends(admin, ctx.auditTopics),
      committed(admin, group, ctx.auditTopics),
    ]);
    const total = [...end.values()].reduce((sum, high) => sum + high, 0n);
    const left = [...end].reduce((sum, [p, high]) => {
      const at = done.get(p) ?? -1n;
      return sum + (high - (at < 0n ? start.get(p)! : at));
    }, 0n);
    ctx.progress?.(Number(total - from - left), Number(total - from));
    if (left <= BigInt(CATCH_UP_RECORDS)) return;
    await sleep(POLL_MS);
  }
}

/** A consumer group with no member left. */
async function groupGone(admin: Admin, groupId: string): Promise<boolean> {
  const { groups } = await admin.describeGroups([groupId]);
  return ['Empty', 'Dead', undefined].includes(groups[0]?.state);
}

/** The replay's group and, after a grace for reads begun on it, the old generation go; a failure is only told. */
async function afterSwitch(
  ctx: ReplayProjectionContext,
  admin: Admin,
  group: string,
  old: number,
  dropOldAfterMs: number,
) {
  await admin.deleteGroups([group]).catch(() => undefined);
  ctx.note?.(`generation ${old} is dropped in ${dropOldAfterMs} ms`);
  await sleep(dropOldAfterMs);
  await dropGeneration(ctx.schema, old).catch((err: unknown) =>
    ctx.note?.(`generation ${old} was not dropped (${(err as Error).message}); the next replay drops it`),
  );
}

/** Back to the live generation alone; the half-built one goes. */
async function giveUp(ctx: ReplayProjectionContext, live: number, target: number) {
  await ctx.store.write({ phase: 'live', live }, ctx.operator, ctx.now());
  await dropGeneration(ctx.schema, target);
}

/** For a replay whose command died: the state back to live, the half-built generation dropped. */
export async function abortReplay(ctx: ReplayProjectionContext) {
  const state = await ctx.store.read();
  if (state.phase === 'live') return { aborted: false, live: state.live };
  await giveUp(ctx, state.live, state.target);
  return { aborted: true, live: state.live, dropped: state.target };
}
