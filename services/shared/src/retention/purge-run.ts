import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { expireJobFiles, exportJobsRepository, type ExportFiles } from '../export-jobs/index.js';
import {
  clickhouseErrorCode,
  clusterGuard,
  sleep,
  sqlValue,
  type ClickHouseClient,
  type ClusterGuard,
} from '../platform/index.js';
import { projectionStateStore, projectionTables } from '../projection/index.js';
import {
  clusterDeleter,
  countWhere,
  deletionTargets,
  purgeTables,
  serverDeleter,
  settleBuckets,
  type RowDeleter,
} from './purge.clickhouse.js';
import { HORIZON_SETTLE_MS, purgeCondition, purgeHorizon, type PurgeScope } from './purge-scope.js';
import { PurgeBusyError, purgeRepository, type LastPurge, type PurgeProgress } from './purge.repository.js';
import { retentionPurgeEvent, type RetentionActor } from './retention-audit-event.js';

// A purge deletes again what a racing write stored under the horizon (an event sent late with an old time, before
// the projector saw the horizon): a few rounds end it, more mean something keeps writing there.
const MAX_ROUNDS = 3;

/**
 * How long one statement of a purge may take: a deletion returns once ClickHouse has its mutation, but the
 * summary's settling reads the tenant's whole history under the horizon in one statement (2 million events took
 * over two minutes on a loaded 2-core machine), as long as a backfill's statements may take.
 */
export const PURGE_STATEMENT_MS = 6 * 3600 * 1000;

export interface PurgeContext {
  pool: pg.Pool;
  /** Writes the run's audit event into the tenant's trail; when it cannot, nothing is purged. */
  publish: (event: unknown) => Promise<unknown>;
  /** Who runs the purge (an operator, the custodian), as its audit event and its record name them. */
  actor: RetentionActor;
  clickhouse: ClickHouseClient;
  /** The client's database: where the projection's tables are. */
  database: string;
  /** Where the export jobs' files are: those that may hold purged events are expired with the purge. */
  files: Pick<ExportFiles, 'remove' | 'size' | 'describe'>;
  /** How rows are deleted and counts inserted, on the server or the cluster (purgeWriter). */
  writer: PurgeWriter;
  now: () => number;
  note?: (text: string) => void;
}

export interface PurgeReport {
  tenant_id: string;
  /** Null: the policy has no maximum, so nothing is purged. */
  purged_before: number | null;
  purge_id: string | null;
  holds: number;
  /** Events removed (to be removed, with dry_run), and events under the horizon that holds keep. */
  purged: number;
  kept: number;
  /** Export jobs whose files were removed (they may have held purged events): each says `expired` now. */
  export_files: number;
  dry_run: boolean;
}

export interface PurgeOptions {
  /** Counts what a run would remove, and changes nothing. */
  dryRun?: boolean;
  /**
   * The custodian's run (docs/retention.md "The schedule"): it does not wait for another purge or retention
   * change of the tenant (`PurgeBusyError`), and runs only if `due` says so of the tenant's last run as it stands
   * under the tenant's lock (another custodian may have purged it since it was found due). When nothing is to be
   * removed and the last run did not fail, it records nothing, writes no audit event and reports no run
   * (`purge_id` null); a failed run may have left the filter index or the summary behind, so its tenant is purged
   * again whatever the events table holds.
   */
  scheduled?: { due: (last: LastPurge | null) => boolean };
}

/**
 * Why a purge did not run, or failed, in our own words: what an operator reads, and what the run's record keeps.
 */
export class PurgeError extends Error {
  override name = 'PurgeError';
}

/** How a purge deletes rows and settles the summary, on one server or on a cluster. */
export interface PurgeWriter {
  deletes: RowDeleter;
  /** The settling's: it reads the summary and the events, and inserts into the summary. */
  settleSettings: ClusterGuard['insertSettings'];
}

/**
 * The purge's writer for the server or the cluster the client reaches: on a cluster, deletions on each shard
 * through `nodes` (every node's own client, CLICKHOUSE_NODE_URLS), and the summary settled with the projector's
 * quorum, reading what every acknowledged insert reached.
 */
export async function purgeWriter(
  client: ClickHouseClient,
  cluster: string | undefined,
  nodes: readonly ClickHouseClient[],
): Promise<PurgeWriter> {
  if (!cluster) return { deletes: serverDeleter(client), settleSettings: {} };
  if (nodes.length === 0) {
    throw new PurgeError(
      "on a ClickHouse cluster a purge needs every node's address (CLICKHOUSE_NODE_URLS, docs/retention.md " +
        '"On a cluster"); nothing was purged',
    );
  }
  const guard = await clusterGuard(client, cluster);
  return {
    deletes: clusterDeleter(nodes, guard.insertSettings),
    settleSettings: { ...guard.readSettings, ...guard.insertSettings },
  };
}

/**
 * The tenant's export files whose window begins under the horizon: the purge removes them, and their jobs say
 * `expired` (docs/retention.md "The purge"). Each must be where this command looks, or the job would say expired
 * while its file, with purged events, stayed where the exporter put it.
 */
async function filesToExpire(ctx: PurgeContext, tenant: string, purgedBefore: number) {
  const jobs = await exportJobsRepository.succeededBefore(ctx.pool, tenant, purgedBefore);
  for (const job of jobs) {
    if ((await ctx.files.size(job.jobId, job.format)) === null) {
      throw new PurgeError(
        `the file of export job ${job.jobId} is not in ${ctx.files.describe()}: the purge needs the ` +
          'exporter\'s EXPORT_STORAGE settings (docs/operations.md "Purging"); nothing was purged',
      );
    }
  }
  return jobs;
}

/**
 * Why a run failed, as its record and the custodian's log keep it: our own words, or a ClickHouse code, never a
 * server's message (which could quote a hold's values, a patient's among them).
 */
export function purgeFailure(err: unknown): string {
  if (err instanceof PurgeError) return err.message;
  const code = clickhouseErrorCode(err);
  return code === null
    ? `${(err as Error).name ?? 'Error'} (its message is in the output or the log of what ran the purge)`
    : `ClickHouse error ${code}`;
}

/** The live generation, while no replay is under way. */
async function liveGeneration(ctx: PurgeContext): Promise<number> {
  const state = await projectionStateStore(ctx.clickhouse).read();
  if (state.phase !== 'live') {
    throw new PurgeError(
      `a projection replay is under way (phase ${state.phase}): purge once it has ended (ops replay projection)`,
    );
  }
  return state.live;
}

/**
 * Purges the tenant's events past its policy's maximum that no hold covers (docs/retention.md "The purge"), from
 * every generation's events table, filter index and summary, and its export files that may hold them. In this
 * order: the audit event, the run's record, then the horizon (the projector stores nothing under it from then on
 * that no hold covers), then the deletions, until none is left. Runs while the tenant's retention changes wait, so
 * that a hold created meanwhile is not passed over.
 */
export async function purgeTenant(
  ctx: PurgeContext,
  tenant: string,
  { dryRun = false, scheduled }: PurgeOptions = {},
): Promise<PurgeReport> {
  const purges = purgeRepository(ctx.pool);
  return purges.exclusive(
    tenant,
    async (start) => {
      if (scheduled && !scheduled.due(start.last)) {
        throw new PurgeBusyError(tenant, 'another purge of the tenant ran since it was found due');
      }
      const now = ctx.now();
      const computed = purgeHorizon(start.policy, now);
      const nothing = {
        tenant_id: tenant,
        purge_id: null,
        holds: start.holds.length,
        purged: 0,
        kept: 0,
        export_files: 0,
      };
      // No maximum: nothing is purged, below an earlier horizon either (what is left there is kept).
      if (computed === null) return { ...nothing, purged_before: null, dry_run: dryRun };
      // Never past the floor: a horizon left by an earlier, shorter policy does not remove events the minimum keeps.
      const purgedBefore = Math.min(
        Math.max(start.purgedBefore ?? 0, computed),
        purgeHorizon({ max_days: start.policy.min_days }, now)!,
      );
      const scope: PurgeScope = { purgedBefore, holds: start.holds };
      const where = purgeCondition(tenant, scope);
      const under = `tenant_id = ${sqlValue(tenant)} AND ts < ${sqlValue(purgedBefore)}`;
      const tables = await purgeTables(ctx.clickhouse, ctx.database);
      const live = projectionTables(await liveGeneration(ctx));
      const count = async () => {
        const [purged, all] = await Promise.all([
          countWhere(ctx.clickhouse, live.events, where),
          countWhere(ctx.clickhouse, live.events, under),
        ]);
        return { purged, kept: all - purged, all };
      };
      const expected = await count();
      const files = await filesToExpire(ctx, tenant, purgedBefore);
      if (scheduled && start.last?.status !== 'failed' && expected.purged === 0 && files.length === 0) {
        return { ...nothing, kept: expected.kept, purged_before: purgedBefore, dry_run: false };
      }
      if (dryRun) {
        return {
          ...nothing,
          purged: expected.purged,
          kept: expected.kept,
          export_files: files.length,
          purged_before: purgedBefore,
          dry_run: true,
        };
      }

      const purgeId = randomUUID();
      const run = { purge_id: purgeId, purged_before: purgedBefore, holds: start.holds.length };
      await ctx
        .publish(retentionPurgeEvent(tenant, ctx.actor, { ...run, events: expected.purged }))
        .catch((err: unknown) => {
          throw new PurgeError(
            `the audit event could not be written (${(err as Error).message}): nothing was purged`,
          );
        });
      await purges.started(tenant, { ...run, started_by: ctx.actor.user_id });
      try {
        await purges.advance(tenant, purgedBefore);
        // From here the projector leaves out what this run removes; once it has seen that, the run deletes.
        await purges.deleting(purgeId);
        await sleep(HORIZON_SETTLE_MS);
        const step = (p: Omit<PurgeProgress, 'tables'>) =>
          purges.progressed(purgeId, { ...p, tables: tables.length });
        for (let round = 1; ; round++) {
          for (const [done, t] of tables.entries()) {
            await step({ phase: 'deleting', round, tables_done: done });
            ctx.note?.(`${t.events}: deleting`);
            for (const target of deletionTargets(t)) await ctx.writer.deletes(target, where);
            if (t.index !== null) {
              await settleBuckets(
                ctx.clickhouse,
                { events: t.events, buckets: t.index.buckets },
                tenant,
                purgedBefore,
                ctx.writer.settleSettings,
              );
            }
          }
          await step({ phase: 'checking', round, tables_done: tables.length });
          const left = (
            await Promise.all(tables.map((t) => countWhere(ctx.clickhouse, t.events, where)))
          ).reduce((a, b) => a + b, 0);
          if (left === 0) break;
          if (round === MAX_ROUNDS) {
            throw new PurgeError(
              `${left} events under the horizon came back after ${round} rounds of deletions`,
            );
          }
        }
        if ((await liveGeneration(ctx)) !== live.generation) {
          throw new PurgeError('a projection replay switched generations during the purge: run it again');
        }
        await step({ phase: 'expiring', round: null, tables_done: null });
        const expired = await expireJobFiles(ctx.pool, ctx.files, files);
        const after = await count();
        // What left the live generation: the run's own count, a racing write it deleted too included.
        const purged = Math.max(expected.all - after.all, 0);
        await purges.finished(purgeId, { purged, kept: after.kept });
        return {
          ...nothing,
          purge_id: purgeId,
          purged_before: purgedBefore,
          purged,
          kept: after.kept,
          export_files: expired,
          dry_run: false,
        };
      } catch (err) {
        // Recorded if it can be: the error the operator sees is the run's, not the record's.
        await purges.finished(purgeId, { error: purgeFailure(err) }).catch(() => undefined);
        throw err;
      }
    },
    !scheduled,
  );
}
