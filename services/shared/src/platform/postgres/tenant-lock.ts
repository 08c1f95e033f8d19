import type pg from 'pg';

/**
 * The classes of our per-tenant advisory locks (the first key of Postgres's two-key form), each apart from the
 * others and from any other user of the database: webhook endpoints, export jobs, webhook replays, display
 * templates, retention policies and legal holds.
 */
export const TENANT_LOCKS = {
  webhookEndpoints: 7,
  exportJobs: 8,
  webhookReplays: 9,
  displayTemplates: 11,
  retention: 12,
} as const;

/**
 * Serializes the tenant's changes of one kind until the transaction ends: a per-tenant cap counted under it is
 * exact under concurrent requests.
 */
export async function lockTenant(
  db: Pick<pg.ClientBase, 'query'>,
  kind: keyof typeof TENANT_LOCKS,
  tenantId: string,
): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TENANT_LOCKS[kind], tenantId]);
}

/** As `lockTenant`, without waiting: false when another transaction holds the lock. */
export async function tryLockTenant(
  db: Pick<pg.ClientBase, 'query'>,
  kind: keyof typeof TENANT_LOCKS,
  tenantId: string,
): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>(
    'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
    [TENANT_LOCKS[kind], tenantId],
  );
  return rows[0]?.locked === true;
}

/**
 * The classes of our advisory locks over a whole table or resource (second key 0), apart from the per-tenant ones:
 * the export job queue, and the audit topic's configuration (its growth and its retention: each writes every
 * setting of a topic back, and would undo the other's).
 */
export const TABLE_LOCKS = { exportJobQueue: 10, auditTopicConfig: 13 } as const;

/** Serializes one kind of change of the whole table until the transaction ends. */
export async function lockTable(
  db: Pick<pg.ClientBase, 'query'>,
  kind: keyof typeof TABLE_LOCKS,
): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, 0)', [TABLE_LOCKS[kind]]);
}
