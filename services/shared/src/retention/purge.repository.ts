import type pg from 'pg';
import { inTransaction, lockTenant, tryLockTenant } from '../platform/index.js';
import type { HoldScope } from './legal-hold.js';
import type { HoldSpan, PurgeHistory, PurgeMark } from './purge-history.js';
import { DEFAULT_POLICY, type RetentionPolicy } from './retention-policy.js';
import { scopeOfColumns, type HoldScopeColumns } from './retention.repository.js';

type Db = Pick<pg.ClientBase, 'query'>;

export type PurgeStatus = 'running' | 'succeeded' | 'failed';

/**
 * Where a run has got: waiting for the projector to see its mark, deleting (round, and tables of every
 * generation done in it), checking what is left, expiring export files (0035_retention_purge_progress).
 */
export interface PurgeProgress {
  phase: 'waiting' | 'deleting' | 'checking' | 'expiring';
  round: number | null;
  tables_done: number | null;
  tables: number | null;
}

/** What every run has done, over all tenants: the purge metrics (docs/retention.md "The purge"). */
export interface PurgeTotals {
  runs: Record<PurgeStatus, number>;
  /** Events removed by the runs that succeeded. */
  purged: number;
  /** When the oldest run still said to be running began; null when none is. */
  oldestRunning: Date | null;
}

/** One purge run of a tenant (0032_retention_purges). */
export interface PurgeRun {
  purge_id: string;
  purged_before: number;
  holds: number;
  status: PurgeStatus;
  /** Events removed, and events under the horizon that holds kept: known once it succeeded. */
  purged: number | null;
  kept: number | null;
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
  started_by: string;
  /** Null before the run marked its decisions. */
  progress: PurgeProgress | null;
}

/**
 * Another purge, or a change of the tenant's policy or holds, holds the tenant's retention lock, or a purge of the
 * tenant ran since a schedule found it due.
 */
export class PurgeBusyError extends Error {
  override name = 'PurgeBusyError';
  constructor(tenant: string, why = 'a purge or a retention change of the tenant is under way') {
    super(`${why} (tenant ${tenant})`);
  }
}

/** How a tenant's last run went, and when it began and ended. */
export type LastPurge = Pick<PurgeRun, 'status' | 'started_at' | 'finished_at'>;

/** A tenant whose policy has a maximum, with its last run (null before its first). */
export interface PurgeCandidate {
  tenant_id: string;
  last: LastPurge | null;
}

/** What a purge of one tenant starts from, read under the tenant's retention lock. */
export interface PurgeStart {
  policy: RetentionPolicy;
  holds: HoldScope[];
  /** The horizon of the tenant's last purge, null before the first. */
  purgedBefore: number | null;
  /** The tenant's last run, a run whose process stopped already said to have failed; null before the first. */
  last: LastPurge | null;
}

type HoldScopeRow = HoldScopeColumns & { tenant_id: string };

/** A tenant's runs, its last one first. */
const NEWEST_FIRST = 'ORDER BY started_at DESC, purge_id DESC';

const RUN_COLUMNS = `purge_id, purged_before, holds, status, purged, kept, error, started_at, finished_at,
  started_by, phase, round, tables_done, tables`;

type RunRow = Omit<PurgeRun, 'purged_before' | 'purged' | 'kept' | 'progress'> & {
  purged_before: string;
  purged: string | null;
  kept: string | null;
} & { [K in keyof PurgeProgress]: K extends 'phase' ? PurgeProgress[K] | null : number | null };

const runOf = ({ phase, round, tables_done, tables, ...row }: RunRow): PurgeRun => ({
  ...row,
  purged_before: Number(row.purged_before),
  purged: row.purged === null ? null : Number(row.purged),
  kept: row.kept === null ? null : Number(row.kept),
  progress: phase === null ? null : { phase, round, tables_done, tables },
});

async function activeHolds(db: Db, tenants: readonly string[]): Promise<HoldScopeRow[]> {
  const { rows } = await db.query<HoldScopeRow>(
    `SELECT tenant_id, user_id, resource_id, patient_id, since, until FROM legal_holds
      WHERE tenant_id = ANY($1) AND released_at IS NULL`,
    [tenants],
  );
  return rows;
}

/**
 * The purges of the given tenants (every tenant with a horizon for null), each with the runs that began deleting
 * and every hold it had, released or not: only the columns the projector's and the dispatcher's roles may read
 * (0033, 0034).
 */
async function histories(db: Db, tenants: readonly string[] | null): Promise<Map<string, PurgeHistory>> {
  const horizons = await db.query<{ tenant_id: string; purged_before: string }>(
    `SELECT tenant_id, purged_before FROM retention_horizons WHERE $1::text[] IS NULL OR tenant_id = ANY($1)`,
    [tenants],
  );
  const found = new Map(
    horizons.rows.map((r) => [
      r.tenant_id,
      { purgedBefore: Number(r.purged_before), runs: [] as PurgeMark[], holds: [] as HoldSpan[] },
    ]),
  );
  if (found.size === 0) return found;
  const runs = await db.query<{ tenant_id: string; purged_before: string; deleting_since: Date }>(
    `SELECT tenant_id, purged_before, deleting_since FROM retention_purges
      WHERE tenant_id = ANY($1) AND deleting_since IS NOT NULL`,
    [[...found.keys()]],
  );
  for (const r of runs.rows) {
    found
      .get(r.tenant_id)
      ?.runs.push({ deletingSince: r.deleting_since.getTime(), purgedBefore: Number(r.purged_before) });
  }
  const holds = await db.query<HoldScopeRow & { created_at: Date; released_at: Date | null }>(
    `SELECT tenant_id, user_id, resource_id, patient_id, since, until, created_at, released_at FROM legal_holds
      WHERE tenant_id = ANY($1)`,
    [[...found.keys()]],
  );
  for (const h of holds.rows) {
    found.get(h.tenant_id)?.holds.push({
      scope: scopeOfColumns(h),
      createdAt: h.created_at.getTime(),
      releasedAt: h.released_at?.getTime() ?? null,
    });
  }
  return found;
}

/** Purge horizons and runs in Postgres (0032_retention_purges, docs/retention.md "The purge"). */
export function purgeRepository(pool: pg.Pool) {
  return {
    /** The tenant's purges as its verifier weighs them: its horizon, runs and every hold it had. */
    async history(tenant: string): Promise<PurgeHistory> {
      return (await histories(pool, [tenant])).get(tenant) ?? { purgedBefore: null, runs: [], holds: [] };
    },

    /** The purges of every tenant that has a horizon: what the projector decides by (docs/retention.md). */
    async histories(): Promise<Map<string, PurgeHistory>> {
      return histories(pool, null);
    },

    /**
     * Runs `purge` while the tenant's retention changes wait (no policy set, no hold created or released until it
     * ends), from the policy, the holds in force and the horizon as they stand: a hold created during a purge would
     * otherwise not keep what the purge is removing. Without `wait`, it throws `PurgeBusyError` at once when another
     * purge or change of the tenant's retention holds its lock.
     */
    exclusive<T>(tenant: string, purge: (start: PurgeStart) => Promise<T>, wait = true): Promise<T> {
      return inTransaction(pool, async (db) => {
        if (!wait) {
          if (!(await tryLockTenant(db, 'retention', tenant))) throw new PurgeBusyError(tenant);
        } else await lockTenant(db, 'retention', tenant);
        // A run still said to be running holds no lock: its process stopped before it could say how it ended.
        await pool.query(
          `UPDATE retention_purges SET status = 'failed', finished_at = now(),
             error = 'the run stopped before it ended (its process was stopped or lost its connection)'
           WHERE tenant_id = $1 AND status = 'running'`,
          [tenant],
        );
        // One after the other: a transaction's queries share its one connection.
        const policies = await db.query<RetentionPolicy>(
          'SELECT min_days, max_days, version, changed_at, changed_by FROM retention_policies WHERE tenant_id = $1',
          [tenant],
        );
        const holds = await activeHolds(db, [tenant]);
        const horizons = await db.query<{ purged_before: string }>(
          'SELECT purged_before FROM retention_horizons WHERE tenant_id = $1',
          [tenant],
        );
        const horizon = horizons.rows[0];
        const last = await db.query<LastPurge>(
          `SELECT status, started_at, finished_at FROM retention_purges WHERE tenant_id = $1
            ${NEWEST_FIRST} LIMIT 1`,
          [tenant],
        );
        return purge({
          policy: policies.rows[0] ?? DEFAULT_POLICY,
          holds: holds.map(scopeOfColumns),
          purgedBefore: horizon ? Number(horizon.purged_before) : null,
          last: last.rows[0] ?? null,
        });
      });
    },

    /** Moves the tenant's horizon to `purgedBefore` unless it is there or later already; committed at once. */
    async advance(tenant: string, purgedBefore: number): Promise<void> {
      await pool.query(
        `INSERT INTO retention_horizons (tenant_id, purged_before) VALUES ($1, $2)
         ON CONFLICT (tenant_id) DO UPDATE SET purged_before = $2, updated_at = now()
           WHERE retention_horizons.purged_before < $2`,
        [tenant, purgedBefore],
      );
    },

    async started(
      tenant: string,
      run: Pick<PurgeRun, 'purge_id' | 'purged_before' | 'holds' | 'started_by'>,
    ): Promise<void> {
      await pool.query(
        `INSERT INTO retention_purges (purge_id, tenant_id, purged_before, holds, status, started_by)
         VALUES ($1, $2, $3, $4, 'running', $5)`,
        [run.purge_id, tenant, run.purged_before, run.holds, run.started_by],
      );
    },

    /** Marks the run as deleting from now on: the projector decides by it from then (docs/retention.md). */
    async deleting(purgeId: string): Promise<void> {
      await pool.query(
        `UPDATE retention_purges SET deleting_since = now(), phase = 'waiting' WHERE purge_id = $1`,
        [purgeId],
      );
    },

    /** Records where the run has got. */
    async progressed(purgeId: string, p: PurgeProgress): Promise<void> {
      await pool.query(
        'UPDATE retention_purges SET phase = $2, round = $3, tables_done = $4, tables = $5 WHERE purge_id = $1',
        [purgeId, p.phase, p.round, p.tables_done, p.tables],
      );
    },

    /**
     * The tenants a schedule purges: those whose policy has a maximum, each with its last run (the run still said
     * to be running included: its process may have stopped).
     */
    async candidates(): Promise<PurgeCandidate[]> {
      const { rows } = await pool.query<{
        tenant_id: string;
        status: PurgeStatus | null;
        started_at: Date | null;
        finished_at: Date | null;
      }>(
        `SELECT p.tenant_id, r.status, r.started_at, r.finished_at
           FROM retention_policies p
           LEFT JOIN LATERAL (
             SELECT status, started_at, finished_at FROM retention_purges
              WHERE tenant_id = p.tenant_id ${NEWEST_FIRST} LIMIT 1
           ) r ON true
          WHERE p.max_days IS NOT NULL ORDER BY p.tenant_id`,
      );
      return rows.map((r) => ({
        tenant_id: r.tenant_id,
        last:
          r.status === null || r.started_at === null
            ? null
            : { status: r.status, started_at: r.started_at, finished_at: r.finished_at },
      }));
    },

    /** What every run has done, over all tenants (no tenant's own figures). */
    async totals(): Promise<PurgeTotals> {
      const { rows } = await pool.query<{
        status: PurgeStatus;
        runs: string;
        purged: string | null;
        oldest: Date | null;
      }>(
        `SELECT status, count(*) AS runs, sum(purged) AS purged,
                min(started_at) FILTER (WHERE status = 'running') AS oldest
           FROM retention_purges GROUP BY status`,
      );
      const runs: Record<PurgeStatus, number> = { running: 0, succeeded: 0, failed: 0 };
      for (const r of rows) runs[r.status] = Number(r.runs);
      return {
        runs,
        purged: Number(rows.find((r) => r.status === 'succeeded')?.purged ?? 0),
        oldestRunning: rows.find((r) => r.status === 'running')?.oldest ?? null,
      };
    },

    async finished(
      purgeId: string,
      outcome: { purged: number; kept: number } | { error: string },
    ): Promise<void> {
      const failed = 'error' in outcome;
      await pool.query(
        // A run that succeeded has nothing left to say of its progress; a failed one keeps where it stopped.
        `UPDATE retention_purges SET status = $2, purged = $3, kept = $4, error = $5, finished_at = now(),
           phase = CASE WHEN $2 = 'succeeded' THEN NULL ELSE phase END
          WHERE purge_id = $1`,
        [
          purgeId,
          failed ? 'failed' : 'succeeded',
          failed ? null : outcome.purged,
          failed ? null : outcome.kept,
          failed ? outcome.error : null,
        ],
      );
    },

    /** The tenant's horizon (null before its first purge) and its last runs, newest first. */
    async status(tenant: string, limit: number): Promise<{ purgedBefore: number | null; runs: PurgeRun[] }> {
      const [horizon, runs] = await Promise.all([
        pool.query<{ purged_before: string }>(
          'SELECT purged_before FROM retention_horizons WHERE tenant_id = $1',
          [tenant],
        ),
        pool.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM retention_purges WHERE tenant_id = $1
            ${NEWEST_FIRST} LIMIT $2`,
          [tenant, limit],
        ),
      ]);
      const h = horizon.rows[0];
      return { purgedBefore: h ? Number(h.purged_before) : null, runs: runs.rows.map(runOf) };
    },
  };
}

export type PurgeRepository = ReturnType<typeof purgeRepository>;
