import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, lockTenant } from '../platform/index.js';
import type { HoldCreate, HoldScope, LegalHold } from './legal-hold.js';
import { DEFAULT_POLICY, type PolicyChange, type RetentionPolicy } from './retention-policy.js';

type Db = Pick<pg.ClientBase, 'query'>;

/** Announces a stored change (its audit event): the change commits only after it resolved. */
export type Announce<T> = (change: T) => Promise<void>;

export const HOLD_STATUSES = ['active', 'released', 'all'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/** Where a page of holds starts: after this one, newest first. */
export interface HoldPosition {
  created_at: Date;
  hold_id: string;
}

const POLICY_COLUMNS = 'min_days, max_days, version, changed_at, changed_by';
const HOLD_COLUMNS = `hold_id, reason, user_id, resource_id, patient_id, since, until, created_at, created_by,
  released_at, released_by, release_reason`;

interface HoldRow extends Omit<LegalHold, 'scope'> {
  user_id: string | null;
  resource_id: string | null;
  patient_id: string | null;
  since: string | null;
  until: string | null;
}

/** A hold's scope as its columns store it: null is a field the hold does not set. */
export type HoldScopeColumns = Pick<HoldRow, 'user_id' | 'resource_id' | 'patient_id' | 'since' | 'until'>;

export const scopeOfColumns = (row: HoldScopeColumns): HoldScope => ({
  ...(row.user_id !== null && { user_id: row.user_id }),
  ...(row.resource_id !== null && { resource_id: row.resource_id }),
  ...(row.patient_id !== null && { patient_id: row.patient_id }),
  ...(row.since !== null && { since: Number(row.since) }),
  ...(row.until !== null && { until: Number(row.until) }),
});

function holdOf(row: HoldRow): LegalHold {
  return {
    hold_id: row.hold_id,
    reason: row.reason,
    scope: scopeOfColumns(row),
    created_at: row.created_at,
    created_by: row.created_by,
    released_at: row.released_at,
    released_by: row.released_by,
    release_reason: row.release_reason,
  };
}

async function policyIn(db: Db, tenant: string): Promise<RetentionPolicy> {
  const { rows } = await db.query<RetentionPolicy>(
    `SELECT ${POLICY_COLUMNS} FROM retention_policies WHERE tenant_id = $1`,
    [tenant],
  );
  return rows[0] ?? DEFAULT_POLICY;
}

/**
 * A tenant's retention policy and legal holds in Postgres (0031_retention_and_legal_holds, docs/retention.md).
 * Every change runs under the tenant's retention lock and commits only once its audit event is announced.
 */
export function retentionRepository(pool: pg.Pool) {
  return {
    /** The policy in force: the default (version 0) while none was set. */
    policy: (tenant: string) => policyIn(pool, tenant),

    /** Sets the policy as a new version; returns it and the one it replaced. */
    setPolicy(
      tenant: string,
      change: PolicyChange,
      by: string,
      announce: Announce<{ policy: RetentionPolicy; previous: RetentionPolicy }>,
    ): Promise<{ policy: RetentionPolicy; previous: RetentionPolicy }> {
      return inTransaction(pool, async (db) => {
        await lockTenant(db, 'retention', tenant);
        const previous = await policyIn(db, tenant);
        const { rows } = await db.query<RetentionPolicy>(
          `INSERT INTO retention_policies (tenant_id, min_days, max_days, version, changed_by)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (tenant_id) DO UPDATE SET min_days = $2, max_days = $3, version = $4, changed_by = $5,
             changed_at = now()
           RETURNING ${POLICY_COLUMNS}`,
          [tenant, change.min_days, change.max_days, previous.version + 1, by],
        );
        const changed = { policy: rows[0]!, previous };
        await announce(changed);
        return changed;
      });
    },

    /** The tenant's holds of that status, newest first, `limit` of them after `after`. */
    async holds(
      tenant: string,
      status: HoldStatus,
      limit: number,
      after: HoldPosition | null,
    ): Promise<LegalHold[]> {
      const { rows } = await pool.query<HoldRow>(
        `SELECT ${HOLD_COLUMNS} FROM legal_holds
          WHERE tenant_id = $1
            AND ($2 = 'all' OR (released_at IS NULL) = ($2 = 'active'))
            AND ($3::timestamptz IS NULL OR (created_at, hold_id) < ($3, $4::uuid))
          ORDER BY created_at DESC, hold_id DESC LIMIT $5`,
        [tenant, status, after?.created_at ?? null, after?.hold_id ?? null, limit],
      );
      return rows.map(holdOf);
    },

    /** One of the tenant's holds, or null. */
    async hold(tenant: string, holdId: string): Promise<LegalHold | null> {
      const { rows } = await pool.query<HoldRow>(
        `SELECT ${HOLD_COLUMNS} FROM legal_holds WHERE tenant_id = $1 AND hold_id = $2`,
        [tenant, holdId],
      );
      return rows[0] ? holdOf(rows[0]) : null;
    },

    /** Puts a hold in force: null when the tenant has `max` in force already. */
    createHold(
      tenant: string,
      hold: HoldCreate,
      by: string,
      max: number,
      announce: Announce<LegalHold>,
    ): Promise<LegalHold | null> {
      return inTransaction(pool, async (db) => {
        await lockTenant(db, 'retention', tenant);
        const { rows: counted } = await db.query<{ n: string }>(
          'SELECT count(*) AS n FROM legal_holds WHERE tenant_id = $1 AND released_at IS NULL',
          [tenant],
        );
        if (Number(counted[0]!.n) >= max) return null;
        const s = hold.scope;
        const { rows } = await db.query<HoldRow>(
          // Timed after the lock, not at the transaction's start: within a tenant a later commit never gets an
          // earlier time, so a page read meanwhile passes over no later hold (bar one in the same millisecond
          // whose id sorts before the page's last).
          `INSERT INTO legal_holds (hold_id, tenant_id, reason, user_id, resource_id, patient_id, since, until,
             created_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, date_trunc('milliseconds', clock_timestamp()))
           RETURNING ${HOLD_COLUMNS}`,
          [
            randomUUID(),
            tenant,
            hold.reason,
            s.user_id ?? null,
            s.resource_id ?? null,
            s.patient_id ?? null,
            s.since ?? null,
            s.until ?? null,
            by,
          ],
        );
        const created = holdOf(rows[0]!);
        await announce(created);
        return created;
      });
    },

    /**
     * Releases a hold in force; one released already is returned as it is, with `released: false`, and nothing
     * is announced. Null when the tenant has no such hold.
     */
    releaseHold(
      tenant: string,
      holdId: string,
      release: { reason: string; by: string },
      announce: Announce<LegalHold>,
    ): Promise<{ hold: LegalHold; released: boolean } | null> {
      return inTransaction(pool, async (db) => {
        await lockTenant(db, 'retention', tenant);
        // Released when the lock was had, not when the transaction began: a purge run that held the lock meanwhile
        // kept what the hold covers, and the verifier weighs the hold as in force at that run (docs/integrity.md
        // "Verify").
        const { rows } = await db.query<HoldRow>(
          `UPDATE legal_holds SET released_at = date_trunc('milliseconds', clock_timestamp()), released_by = $3,
             release_reason = $4
            WHERE tenant_id = $1 AND hold_id = $2 AND released_at IS NULL RETURNING ${HOLD_COLUMNS}`,
          [tenant, holdId, release.by, release.reason],
        );
        if (rows[0]) {
          const released = holdOf(rows[0]);
          await announce(released);
          return { hold: released, released: true };
        }
        const { rows: found } = await db.query<HoldRow>(
          `SELECT ${HOLD_COLUMNS} FROM legal_holds WHERE tenant_id = $1 AND hold_id = $2`,
          [tenant, holdId],
        );
        return found[0] ? { hold: holdOf(found[0]), released: false } : null;
      });
    },
  };
}

export type RetentionRepository = ReturnType<typeof retentionRepository>;
