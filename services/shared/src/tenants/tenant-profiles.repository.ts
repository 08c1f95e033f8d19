import type pg from 'pg';

type Db = Pick<pg.Pool, 'query'>;

/** At most this many characters: a name a report's heading shows whole. */
export const MAX_DISPLAY_NAME = 200;

/** What the service says of a tenant to people outside it (0029_tenant_profiles). */
export const tenantProfilesRepository = {
  /** The tenant's name, or null while an operator has given it none. */
  async displayName(db: Db, tenantId: string): Promise<string | null> {
    const { rows } = await db.query<{ display_name: string }>(
      'SELECT display_name FROM tenant_profiles WHERE tenant_id = $1',
      [tenantId],
    );
    return rows[0]?.display_name ?? null;
  },

  /**
   * Sets the tenant's name; returns the one it replaced, if any. The statement's snapshot is taken before its upsert
   * changes the row, so `previous` reads the name as it was (a locking read there would see the row only after).
   */
  async setDisplayName(db: Db, tenantId: string, name: string, by: string): Promise<string | null> {
    const { rows } = await db.query<{ previous: string | null }>(
      `WITH previous AS (SELECT display_name FROM tenant_profiles WHERE tenant_id = $1)
       INSERT INTO tenant_profiles (tenant_id, display_name, changed_by) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id) DO UPDATE SET display_name = $2, changed_by = $3, changed_at = now()
       RETURNING (SELECT display_name FROM previous) AS previous`,
      [tenantId, name, by],
    );
    return rows[0]?.previous ?? null;
  },
};
