// The bytes a tree store takes in Postgres, beside the bytes ClickHouse takes for the events it protects.
import type pg from 'pg';
import { sqlValue, type ClickHouseClient } from '@audit/shared';

/** Each table of the tree store (heap with TOAST) and each of their indexes, in bytes, and the leaves. */
export async function treeStoreBytes(pool: pg.Pool) {
  const { rows } = await pool.query<{ name: string; bytes: string; index: boolean }>(
    `SELECT c.relname AS name, CASE WHEN c.relkind = 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END
       AS bytes, c.relkind = 'i' AS index
     FROM pg_class c LEFT JOIN pg_index i ON i.indexrelid = c.oid
     WHERE c.oid IN ('integrity_leaves'::regclass, 'integrity_subtrees'::regclass)
       OR i.indrelid IN ('integrity_leaves'::regclass, 'integrity_subtrees'::regclass)
     ORDER BY c.relkind DESC, c.relname`,
  );
  const { rows: count } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM integrity_leaves');
  const parts = rows.map((r) => ({ name: r.name, bytes: Number(r.bytes), index: r.index }));
  const sum = (index: boolean) => parts.filter((p) => p.index === index).reduce((n, p) => n + p.bytes, 0);
  return { parts, heap: sum(false), indexes: sum(true), leaves: Number(count[0]!.n) };
}

/** Per table of the database: rows and bytes on disk of its active parts (compressed, as stored). */
export async function clickhouseBytes(ch: ClickHouseClient, database: string) {
  const r = await ch.query({
    query: `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
      WHERE database = ${sqlValue(database)} AND active GROUP BY table ORDER BY table`,
    format: 'JSONEachRow',
  });
  const rows = await r.json<{ table: string; rows: string; bytes: string }>();
  return rows.map((t) => ({ table: t.table, rows: Number(t.rows), bytes: Number(t.bytes) }));
}
