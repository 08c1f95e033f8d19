import type pg from 'pg';

/**
 * The classes of our per-tenant advisory locks (the first key of Postgres's two-key form), each apart from the
 * others and from any other user of the database: webhook endpoints, export jobs, webhook replays.
 */
export const TENANT_LOCKS = { webhookEndpoints: 7, exportJobs: 8, webhookReplays: 9 } as const;

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
