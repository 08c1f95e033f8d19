import type { Admin, Kafka } from 'kafkajs';
import {
  projectionTables,
  replayGroupId,
  sleep,
  type ClickHouseClient,
  type ProjectionState,
  type ProjectionStateStore,
  type Topics,
} from '@audit/shared';
import {
  copyBefore,
  countEvents,
  createGeneration,
  dropGeneration,
  existingGenerations,
} from '../adapters/projection-tables.admin.js';
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
  topics: Topics;
  clickhouse: ClickHouseClient;
  database: string;
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

async function committed(admin: Admin, groupId: string, topic: string): Promise<Map<number, bigint>> {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return new Map((offsets?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
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
  const topic = ctx.topics.auditEvents.name;
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
    const live = projectionTables(state.live);
    const generations = await existingGenerations(ctx.clickhouse, ctx.database);
    // Left by a replay that was given up: nothing reads or writes them.
    for (const g of generations.filter((g) => g > state.live)) await dropGeneration(ctx.clickhouse, g);
    const target = Math.max(state.live, ...generations) + 1;
    const group = replayGroupId(ctx.projectorGroupId, target);
    const next = await createGeneration(ctx.clickhouse, live, target);
    ctx.note?.(`building generation ${target} (${next.events}) while generation ${state.live} serves reads`);
    try {
      if (opts.since !== undefined) await copyBefore(ctx.clickhouse, live, next, opts.since);
      const start =
        opts.since === undefined
          ? (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, offset: p.low }))
          : await admin.fetchTopicOffsetsByTimestamp(topic, opts.since);
      await admin.deleteGroups([group]).catch(() => undefined);
      await admin.setOffsets({ groupId: group, topic, partitions: start });
      const from = start.reduce((sum, p) => sum + BigInt(p.offset), 0n);
      await ctx.store.write({ phase: 'build', live: state.live, target }, ctx.operator, ctx.now());
      const buildStarted = ctx.now();

      for (;;) {
        const [ends, done] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          committed(admin, group, topic),
        ]);
        const end = ends.reduce((sum, p) => sum + BigInt(p.high), 0n);
        const left = ends.reduce((sum, p) => {
          const at = done.get(p.partition) ?? -1n;
          const position = at < 0n ? BigInt(start.find((s) => s.partition === p.partition)!.offset) : at;
          return sum + (BigInt(p.high) - position);
        }, 0n);
        ctx.progress?.(Number(end - from - left), Number(end - from));
        if (left <= BigInt(CATCH_UP_RECORDS)) break;
        await sleep(POLL_MS);
      }

      const until = ctx.now() + HANDOVER_MS;
      const deadline = until - HANDOVER_SAFETY_MS;
      const held: ProjectionState = { phase: 'pause', live: state.live, target, until };
      const pausedAt = await ctx.store.write(held, ctx.operator, ctx.now());
      await waitUntil('the projectors to hold their writes', deadline, ctx.now, () =>
        allConfirmed(ctx, admin, target, 'pause', pausedAt),
      );
      // Nothing is written to the live generation any more, and all it holds came from records before the
      // topic's end now (a write can be stored before its offsets are committed: the end, not the commits).
      const liveEnd = new Map(
        (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]),
      );
      await waitUntil('the replay to reach the live projection', deadline, ctx.now, async () => {
        const done = await committed(admin, group, topic);
        return [...liveEnd].every(([p, end]) => end === 0n || (done.get(p) ?? -1n) >= end);
      });
      const drainAt = await ctx.store.write({ ...held, phase: 'drain' }, ctx.operator, ctx.now());
      await waitUntil('the replay consumers to stop', deadline, ctx.now, () =>
        allConfirmed(ctx, admin, target, 'drain', drainAt),
      );
      if (ctx.now() > deadline) throw new CliError('the handover did not finish in time');
      await ctx.store.write({ phase: 'live', live: target }, ctx.operator, ctx.now());
      const switchedAt = ctx.now();
      const replayed = Number(
        [...(await committed(admin, group, topic)).values()].reduce((s, o) => s + (o > 0n ? o : 0n), 0n) -
          from,
      );
      await admin.deleteGroups([group]).catch(() => undefined);
      ctx.note?.(
        `generation ${target} is live; generation ${state.live} is dropped in ${opts.dropOldAfterMs} ms`,
      );
      await sleep(opts.dropOldAfterMs);
      await dropGeneration(ctx.clickhouse, state.live);
      return {
        generation: target,
        previous: state.live,
        since: opts.since === undefined ? null : new Date(opts.since).toISOString(),
        records_replayed: replayed,
        events: await countEvents(ctx.clickhouse, next),
        duration_ms: switchedAt - started,
        build_ms: pausedAt - buildStarted,
        writes_held_ms: switchedAt - pausedAt,
      };
    } catch (err) {
      await giveUp(ctx, state.live, target);
      throw err;
    }
  } finally {
    await admin.disconnect();
  }
}

/** Back to the live generation alone; the half-built one goes. */
async function giveUp(ctx: ReplayProjectionContext, live: number, target: number) {
  await ctx.store.write({ phase: 'live', live }, ctx.operator, ctx.now());
  await dropGeneration(ctx.clickhouse, target);
}

/** For a replay whose command died: the state back to live, the half-built generation dropped. */
export async function abortReplay(ctx: ReplayProjectionContext) {
  const state = await ctx.store.read();
  if (state.phase === 'live') return { aborted: false, live: state.live };
  await giveUp(ctx, state.live, state.target);
  return { aborted: true, live: state.live, dropped: state.target };
}
