import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_SERVICES, serviceRole, type DatabaseService } from '@audit/shared/migrations';
import { uniqueNames } from '../support/names.js';
import { ensureServiceLogins, migratedPostgres, serviceLoginUrl } from '../support/postgres.js';

const names = uniqueNames('roles');
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
let owner: pg.Pool;

/**
 * Every table and what each service's role may do there: all (SELECT, INSERT, UPDATE, DELETE), a few of them, or
 * SELECT or UPDATE of named columns only. A table no service may touch is listed empty: a new table fails this
 * test until someone decides who may touch it (docs/operations.md "Database roles").
 */
const GRANTS: Record<string, Partial<Record<DatabaseService, string>>> = {
  api_keys: { gateway: 'SELECT' },
  audit_topic_generations: { projector: 'SELECT', dispatcher: 'SELECT', exporter: 'SELECT' },
  dead_letter_redrives: {},
  display_templates: { gateway: 'INSERT SELECT' },
  export_jobs: {
    gateway: 'INSERT SELECT',
    exporter: 'SELECT UPDATE',
    custodian: 'SELECT(accepted_at,format,id,since_ms,status,tenant_id) UPDATE(status)',
  },
  integrity_checkpoints: { gateway: 'SELECT', notary: 'INSERT SELECT', exporter: 'SELECT' },
  integrity_keys: { gateway: 'SELECT', notary: 'SELECT' },
  integrity_leaf_events: { gateway: 'SELECT', projector: 'INSERT SELECT' },
  integrity_positions: { projector: 'INSERT SELECT UPDATE(next_offset)' },
  integrity_subtrees: { gateway: 'SELECT', projector: 'INSERT SELECT' },
  integrity_tiles: { gateway: 'SELECT', projector: 'INSERT SELECT UPDATE(max_ts,min_ts,times)' },
  integrity_topics: { projector: 'INSERT SELECT UPDATE(topic)' },
  integrity_trees: {
    gateway: 'SELECT',
    projector: 'INSERT SELECT UPDATE(frontier,size,unsigned_since,updated_at)',
    notary: 'SELECT UPDATE(signed_at,signed_size,unsigned_since)',
  },
  legal_holds: {
    gateway: 'INSERT SELECT UPDATE(release_reason,released_at,released_by)',
    projector: 'SELECT(created_at,patient_id,released_at,resource_id,since,tenant_id,until,user_id)',
    dispatcher: 'SELECT(created_at,patient_id,released_at,resource_id,since,tenant_id,until,user_id)',
    custodian: 'SELECT(patient_id,released_at,resource_id,since,tenant_id,until,user_id)',
  },
  rate_limit_buckets: { gateway: 'INSERT SELECT UPDATE' },
  retention_horizons: {
    gateway: 'SELECT',
    projector: 'SELECT',
    dispatcher: 'SELECT',
    custodian: 'INSERT SELECT UPDATE',
  },
  retention_policies: { gateway: 'INSERT SELECT UPDATE', custodian: 'SELECT' },
  retention_purges: {
    gateway: 'SELECT',
    projector: 'SELECT(deleting_since,purged_before,tenant_id)',
    dispatcher: 'SELECT(deleting_since,purged_before,tenant_id)',
    custodian: 'INSERT SELECT UPDATE',
  },
  schema_migrations: Object.fromEntries(DATABASE_SERVICES.map((s) => [s, 'SELECT'])),
  tenant_profiles: { gateway: 'SELECT' },
  webhook_delivery_attempts: { gateway: 'SELECT', dispatcher: 'DELETE INSERT SELECT UPDATE' },
  webhook_endpoints: {
    gateway: 'DELETE INSERT SELECT UPDATE',
    dispatcher: 'SELECT UPDATE(active,consecutive_failures,disabled_at,last_delivery_at)',
  },
  webhook_rate_slots: { dispatcher: 'INSERT SELECT UPDATE' },
  webhook_replays: { gateway: 'INSERT SELECT', dispatcher: 'SELECT UPDATE' },
  viewer_tokens: { gateway: 'DELETE INSERT SELECT UPDATE(revoked_at)' },
};

/** What the roles hold in this database, in GRANTS' notation: table privileges, then column UPDATEs. */
async function granted(): Promise<Record<string, Partial<Record<DatabaseService, string>>>> {
  const roles = DATABASE_SERVICES.map(serviceRole);
  const tables = await owner.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
  );
  const onTables = await owner.query<{ table_name: string; grantee: string; privilege_type: string }>(
    `SELECT table_name, grantee, privilege_type FROM information_schema.role_table_grants
     WHERE table_schema = 'public' AND grantee = ANY($1)`,
    [roles],
  );
  // Column grants that a table grant does not already cover.
  const onColumns = await owner.query<{
    table_name: string;
    grantee: string;
    column_name: string;
    privilege_type: string;
  }>(
    `SELECT c.table_name, c.grantee, c.column_name, c.privilege_type FROM information_schema.column_privileges c
     WHERE c.table_schema = 'public' AND c.grantee = ANY($1) AND c.privilege_type IN ('SELECT', 'UPDATE')
       AND NOT EXISTS (SELECT 1 FROM information_schema.role_table_grants t
         WHERE t.table_schema = 'public' AND t.table_name = c.table_name AND t.grantee = c.grantee
           AND t.privilege_type = c.privilege_type)`,
    [roles],
  );
  const result: Record<string, Partial<Record<DatabaseService, string>>> = {};
  for (const { table_name } of tables.rows) {
    result[table_name] = {};
    for (const service of DATABASE_SERVICES) {
      const role = serviceRole(service);
      const privileges = onTables.rows
        .filter((g) => g.table_name === table_name && g.grantee === role)
        .map((g) => g.privilege_type)
        .sort();
      for (const privilege of ['SELECT', 'UPDATE']) {
        const columns = onColumns.rows
          .filter((g) => g.table_name === table_name && g.grantee === role && g.privilege_type === privilege)
          .map((g) => g.column_name)
          .sort();
        if (columns.length > 0) privileges.push(`${privilege}(${columns.join(',')})`);
      }
      if (privileges.length > 0) result[table_name][service] = privileges.join(' ');
    }
  }
  return result;
}

/** A session of the service's own (its role's test login), on the test's database. */
async function loggedIn<T>(service: DatabaseService, use: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: serviceLoginUrl(postgres.url, service) });
  await db.connect();
  try {
    return await use(db);
  } finally {
    await db.end();
  }
}

/** The SQLSTATE a statement fails with as the service, or null when it succeeds (rolled back either way). */
async function attempt(service: DatabaseService, sql: string): Promise<string | null> {
  return loggedIn(service, async (db) => {
    await db.query('BEGIN');
    try {
      await db.query(sql);
      return null;
    } catch (err) {
      return (err as { code?: string }).code ?? 'unknown';
    } finally {
      await db.query('ROLLBACK');
    }
  });
}

const DENIED = '42501';
const KEY = `INSERT INTO integrity_keys (name, public_key, verifier_key, status, created_by)
  VALUES ('forged', '\\x00', 'forged+00000000+AA', 'retired', 'x')`;
const CHECKPOINT = `INSERT INTO integrity_checkpoints (tenant_id, tree_size, root_hash, key_name, note, made_at)
  SELECT tenant_id, 1, '\\x00', 'forged', 'x', 0 FROM integrity_trees LIMIT 1`;

beforeAll(async () => {
  postgres = await migratedPostgres(names);
  // The services' test logins: made once per server, by whichever test needs them first.
  await ensureServiceLogins();
  owner = new pg.Pool({ connectionString: postgres.url, max: 2 });
  // A tenant's tree, for the writes below to find a row to change.
  await owner.query(`INSERT INTO integrity_trees (tenant_id) VALUES ($1)`, [names.tenant]);
});

afterAll(async () => {
  await owner?.end();
  await postgres?.drop();
});

describe("each service's database role", () => {
  it('holds exactly the grants decided for it, on every table', async () => {
    expect(await granted()).toEqual(GRANTS);
  });

  it('logs in, reads what it needs, and creates nothing', async () => {
    for (const service of DATABASE_SERVICES) {
      expect(await attempt(service, 'SELECT count(*) FROM schema_migrations'), service).toBeNull();
      expect(await attempt(service, 'CREATE TABLE planted (x int)'), service).toBe(DENIED);
    }
  });

  it('the gateway cannot write trees, keys or checkpoints, nor keys of its own', async () => {
    expect(await attempt('gateway', KEY)).toBe(DENIED);
    expect(await attempt('gateway', CHECKPOINT)).toBe(DENIED);
    expect(await attempt('gateway', `UPDATE integrity_trees SET size = 0`)).toBe(DENIED);
    expect(await attempt('gateway', `DELETE FROM integrity_tiles`)).toBe(DENIED);
    expect(await attempt('gateway', `UPDATE api_keys SET revoked_at = now()`)).toBe(DENIED);
    expect(await attempt('gateway', `UPDATE export_jobs SET status = 'succeeded'`)).toBe(DENIED);
    expect(await attempt('gateway', `SELECT count(*) FROM webhook_endpoints`)).toBeNull();
  });

  it('the projector writes trees, but neither keys nor checkpoints nor what the notary signed', async () => {
    expect(await attempt('projector', KEY)).toBe(DENIED);
    expect(await attempt('projector', CHECKPOINT)).toBe(DENIED);
    expect(await attempt('projector', `UPDATE integrity_trees SET signed_size = 1`)).toBe(DENIED);
    expect(await attempt('projector', `DELETE FROM integrity_leaf_events`)).toBe(DENIED);
    expect(await attempt('projector', `UPDATE integrity_trees SET size = 0`)).toBeNull();
  });

  it('the notary signs, but cannot change a tree, nor make a key', async () => {
    expect(await attempt('notary', KEY)).toBe(DENIED);
    expect(await attempt('notary', `UPDATE integrity_trees SET size = 0`)).toBe(DENIED);
    expect(await attempt('notary', `UPDATE integrity_trees SET frontier = '{}'`)).toBe(DENIED);
    expect(await attempt('notary', `DELETE FROM integrity_checkpoints`)).toBe(DENIED);
    expect(await attempt('notary', `UPDATE integrity_trees SET signed_size = 0`)).toBeNull();
  });

  it("the dispatcher and the exporter touch no integrity table, no key, and no endpoint's address", async () => {
    for (const service of ['dispatcher', 'exporter'] as const) {
      expect(await attempt(service, KEY), service).toBe(DENIED);
      expect(await attempt(service, `UPDATE integrity_trees SET size = 0`), service).toBe(DENIED);
      expect(await attempt(service, `SELECT count(*) FROM api_keys`), service).toBe(DENIED);
    }
    expect(await attempt('dispatcher', `UPDATE webhook_endpoints SET url = 'http://127.0.0.1/x'`)).toBe(
      DENIED,
    );
    expect(await attempt('dispatcher', `UPDATE webhook_endpoints SET consecutive_failures = 0`)).toBeNull();
    expect(await attempt('exporter', `DELETE FROM export_jobs`)).toBe(DENIED);
  });

  it('the custodian records purges, but changes no policy or hold, and of an export job only its status', async () => {
    expect(await attempt('custodian', KEY)).toBe(DENIED);
    expect(await attempt('custodian', `UPDATE retention_policies SET max_days = 1`)).toBe(DENIED);
    expect(await attempt('custodian', `UPDATE legal_holds SET released_at = now()`)).toBe(DENIED);
    expect(await attempt('custodian', `SELECT reason FROM legal_holds`)).toBe(DENIED);
    expect(await attempt('custodian', `SELECT filters FROM export_jobs`)).toBe(DENIED);
    expect(await attempt('custodian', `UPDATE export_jobs SET since_ms = 0`)).toBe(DENIED);
    expect(await attempt('custodian', `DELETE FROM retention_purges`)).toBe(DENIED);
    expect(await attempt('custodian', `UPDATE integrity_trees SET size = 0`)).toBe(DENIED);
    expect(await attempt('custodian', `UPDATE export_jobs SET status = 'expired' WHERE false`)).toBeNull();
  });
});
