import { describe, expect, it } from 'vitest';
import { loadMigrations, MIGRATIONS_DIR, splitStatements } from '../../migrations/migration-files.js';
import { cloneStatements, clusterStatements } from './cluster-ddl.js';

const t = { cluster: 'audit', database: 'db1' };
const flat = (statements: string[]) => statements.map((s) => s.replace(/\s+/g, ' ').trim());

describe('clusterStatements', () => {
  it('shards a table with a tenant: a replicated local table per shard and a Distributed table by tenant', () => {
    expect(
      flat(
        clusterStatements(
          `CREATE TABLE IF NOT EXISTS audit_events (tenant_id String, ts Int64)
           ENGINE = ReplacingMergeTree PARTITION BY intDiv(ts, 2592000000) ORDER BY (tenant_id, ts)
           SETTINGS index_granularity = 1024;`,
          t,
        ),
      ),
    ).toEqual([
      "CREATE TABLE IF NOT EXISTS db1.audit_events_local ON CLUSTER audit (tenant_id String, ts Int64) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db1/audit_events_local', '{replica}') PARTITION BY intDiv(ts, 2592000000) ORDER BY (tenant_id, ts) SETTINGS index_granularity = 1024",
      'CREATE TABLE IF NOT EXISTS db1.audit_events ON CLUSTER audit AS db1.audit_events_local ENGINE = Distributed(audit, db1, audit_events_local, cityHash64(tenant_id))',
    ]);
  });

  it('replicates a table without a tenant whole on every node, keeping engine arguments and defaults', () => {
    expect(
      flat(
        clusterStatements(
          `CREATE TABLE IF NOT EXISTS \`schema_migrations\` (version UInt32, applied_at DateTime DEFAULT now())
           ENGINE = ReplacingMergeTree(version) ORDER BY version`,
          t,
        ),
      ),
    ).toEqual([
      "CREATE TABLE IF NOT EXISTS db1.schema_migrations ON CLUSTER audit (version UInt32, applied_at DateTime DEFAULT now()) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/db1/schema_migrations', '{replica}', version) ORDER BY version",
    ]);
  });

  it('keeps every block of a summing table: two equal counts are two counts', () => {
    const [local] = flat(
      clusterStatements(
        `CREATE TABLE IF NOT EXISTS b (tenant_id String, n Int64) ENGINE = SummingMergeTree ORDER BY tenant_id
         SETTINGS index_granularity = 1024`,
        t,
      ),
    );
    expect(local).toMatch(/SETTINGS index_granularity = 1024, replicated_deduplication_window = 0$/);
    const [bare] = flat(
      clusterStatements(
        'CREATE TABLE IF NOT EXISTS b (tenant_id String, n Int64) ENGINE = SummingMergeTree ORDER BY tenant_id',
        t,
      ),
    );
    expect(bare).toMatch(/ORDER BY tenant_id SETTINGS replicated_deduplication_window = 0$/);
  });

  it('makes a view read and fill the local tables of its own shard', () => {
    expect(
      flat(
        clusterStatements(
          'CREATE MATERIALIZED VIEW IF NOT EXISTS `v` TO `ids` AS SELECT tenant_id, cityHash64(event_id) AS h FROM `events` WHERE x IN (SELECT 1)',
          t,
        ),
      ),
    ).toEqual([
      'CREATE MATERIALIZED VIEW IF NOT EXISTS db1.v ON CLUSTER audit TO db1.ids_local AS SELECT tenant_id, cityHash64(event_id) AS h FROM db1.events_local WHERE x IN (SELECT 1)',
    ]);
  });

  it('creates and drops databases and tables on every node; a drop takes the local table too', () => {
    expect(clusterStatements('CREATE DATABASE IF NOT EXISTS `db1`', t)).toEqual([
      'CREATE DATABASE IF NOT EXISTS db1 ON CLUSTER audit',
    ]);
    expect(clusterStatements('DROP DATABASE IF EXISTS db1', t)).toEqual([
      'DROP DATABASE IF EXISTS db1 ON CLUSTER audit',
    ]);
    expect(clusterStatements('DROP TABLE IF EXISTS `x`', t)).toEqual([
      'DROP TABLE IF EXISTS db1.x ON CLUSTER audit',
      'DROP TABLE IF EXISTS db1.x_local ON CLUSTER audit',
    ]);
  });

  it('refuses a form it does not know, rather than run it on one node', () => {
    expect(() => clusterStatements('ALTER TABLE x DELETE WHERE 1', t)).toThrow(/not a statement/);
    expect(() => clusterStatements('CREATE TABLE IF NOT EXISTS m (x UInt8) ENGINE = Memory', t)).toThrow(
      /MergeTree/,
    );
    expect(() => clusterStatements('CREATE TABLE IF NOT EXISTS m (x UInt8', t)).toThrow(/unbalanced/);
  });

  it('takes every statement of the ClickHouse migrations', () => {
    const statements = loadMigrations(new URL('clickhouse/', MIGRATIONS_DIR)).flatMap((m) =>
      splitStatements(m.sql),
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      for (const s of clusterStatements(statement, t)) expect(s).toContain('ON CLUSTER audit');
    }
  });
});

describe('cloneStatements', () => {
  const shown =
    "CREATE TABLE db1.audit_events_local ( tenant_id String,  ts Int64) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db1/audit_events_local', '{replica}') ORDER BY (tenant_id, ts) SETTINGS index_granularity = 1024";

  it('copies a local table with its own replica path, and its Distributed table', () => {
    expect(flat(cloneStatements(shown, 'audit_events', 'audit_events_g2', t))).toEqual([
      "CREATE TABLE IF NOT EXISTS db1.audit_events_g2_local ON CLUSTER audit ( tenant_id String, ts Int64) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db1/audit_events_g2_local', '{replica}') ORDER BY (tenant_id, ts) SETTINGS index_granularity = 1024",
      'CREATE TABLE IF NOT EXISTS db1.audit_events_g2 ON CLUSTER audit AS db1.audit_events_g2_local ENGINE = Distributed(audit, db1, audit_events_g2_local, cityHash64(tenant_id))',
    ]);
  });

  it('refuses a statement of another table or path', () => {
    expect(() => cloneStatements(shown, 'audit_event_ids', 'x', t)).toThrow(/local table/);
    expect(() => cloneStatements(shown.replace('/db1/', '/db9/'), 'audit_events', 'x', t)).toThrow(
      /replicas/,
    );
  });
});
