import { randomUUID } from 'node:crypto';
import { sleep, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { projectionStateStore, projectionTables } from '@audit/shared/projection';
import {
  HORIZON_SETTLE_MS,
  purgeCondition,
  purgeHorizon,
  purgeRepository,
  retentionPurgeEvent,
  type PurgeScope,
} from '@audit/shared/retention';
import { exportJobsRepository, type ExportFiles } from '@audit/shared/export-jobs';
import type { AuditedContext } from '../contexts.js';
import {
  countWhere,
  deleteWhere,
  purgeTables,
  settleBuckets,
} from '../adapters/retention-purge.clickhouse.js';
import { operatorActor } from '../domain/retention-actor.js';
import { announcer } from './audited-change.js';
import { CliError } from './cli-error.js';

// A purge deletes again what a racing write stored under the horizon (an event sent late with an old time, before
// the projector saw the horizon): a few rounds end it, more mean something keeps writing there.
const MAX_ROUNDS = 3;

export interface PurgeContext extends AuditedContext {
  clickhouse: ClickHouseClient;
  /** Where the export jobs' files are: those that may hold purged events are expired with the purge. */
  files: Pick<ExportFiles, 'remove'>;
  /** Null on a single server. */
  cluster: string | null;
  now: () => number;
  note?: (text: string) => void;
}

export interface PurgeReport {
  tenant_id: string;
  /** Null: the policy has no maximum and nothing was ever purged, so nothing is. */
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

/**
 * Removes the tenant's export files whose window begins under the horizon, each before its job says `expired`, as
 * the end of a file's lifetime does (docs/exports.md "Jobs"): a file is not rewritten without the purged rows.
 */
async function expireFiles(ctx: PurgeContext, tenant: string, purgedBefore: number): Promise<number> {
  let expired = 0;
  for (const job of await exportJobsRepository.succeededBefore(ctx.pool, tenant, purgedBefore)) {
    await ctx.files.remove(job.jobId, job.format);
    if (await exportJobsRepository.expire(ctx.pool, job.jobId)) expired += 1;
  }
  return expired;
}

/** The live generation, while no replay is under way. */
async function liveGeneration(ctx: PurgeContext): Promise<number> {
  const state = await projectionStateStore(ctx.clickhouse).read();
  if (state.phase !== 'live') {
    throw new CliError(
      `a projection replay is under way (phase ${state.phase}): purge once it has ended (ops replay projection)`,
    );
  }
  return state.live;
}

/**
 * Purges the tenant's events past its policy's maximum that no hold covers (docs/retention.md "The purge"), from
 * every generation's events table, filter index and summary. In this order: the audit event, then the horizon
 * (the projector stores nothing under it from then on that no hold covers), then the deletions, until none is
 * left. Runs while the tenant's retention changes wait, so that a hold created meanwhile is not passed over.
 */
export async function purgeTenant(ctx: PurgeContext, tenant: string, dryRun: boolean): Promise<PurgeReport> {
  if (ctx.cluster !== null) {
    throw new CliError('retention purge does not run on a ClickHouse cluster yet (docs/retention.md)');
  }
  const purges = purgeRepository(ctx.pool);
  return purges.exclusive(tenant, async (start) => {
    const computed = purgeHorizon(start.policy, ctx.now());
    const purgedBefore = Math.max(start.purgedBefore ?? 0, computed ?? 0);
    const nothing = {
      tenant_id: tenant,
      purge_id: null,
      holds: start.holds.length,
      purged: 0,
      kept: 0,
      export_files: 0,
    };
    if (computed === null && start.purgedBefore === null) {
      return { ...nothing, purged_before: null, dry_run: dryRun };
    }
    const scope: PurgeScope = { purgedBefore, holds: start.holds };
    const where = purgeCondition(tenant, scope);
    const under = `tenant_id = ${sqlValue(tenant)} AND ts < ${sqlValue(purgedBefore)}`;
    const tables = await purgeTables(ctx.clickhouse);
    const live = projectionTables(await liveGeneration(ctx));
    const count = async () => {
      const [purged, all] = await Promise.all([
        countWhere(ctx.clickhouse, live.events, where),
        countWhere(ctx.clickhouse, live.events, under),
      ]);
      return { purged, kept: all - purged, all };
    };
    const expected = await count();
    if (dryRun) {
      return {
        ...nothing,
        purged: expected.purged,
        kept: expected.kept,
        purged_before: purgedBefore,
        dry_run: true,
      };
    }

    const purgeId = randomUUID();
    const run = { purge_id: purgeId, purged_before: purgedBefore, holds: start.holds.length };
    await announcer(ctx)(
      retentionPurgeEvent(tenant, operatorActor(ctx.operator), { ...run, events: expected.purged }),
    );
    await purges.advance(tenant, purgedBefore);
    await purges.started(tenant, { ...run, started_by: ctx.operator.id });
    try {
      await sleep(HORIZON_SETTLE_MS);
      for (let round = 1; ; round++) {
        for (const t of tables) {
          ctx.note?.(`${t.events}: deleting`);
          await deleteWhere(ctx.clickhouse, t.events, where);
          await deleteWhere(ctx.clickhouse, t.index, where);
          await settleBuckets(ctx.clickhouse, t, tenant, purgedBefore);
        }
        const left = (
          await Promise.all(tables.map((t) => countWhere(ctx.clickhouse, t.events, where)))
        ).reduce((a, b) => a + b, 0);
        if (left === 0) break;
        if (round === MAX_ROUNDS) {
          throw new Error(`${left} events under the horizon came back after ${round} rounds of deletions`);
        }
      }
      if ((await liveGeneration(ctx)) !== live.generation) {
        throw new CliError('a projection replay switched generations during the purge: run it again');
      }
      const files = await expireFiles(ctx, tenant, purgedBefore);
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
        export_files: files,
        dry_run: false,
      };
    } catch (err) {
      await purges.finished(purgeId, { error: (err as Error).message.slice(0, 500) });
      throw err;
    }
  });
}
