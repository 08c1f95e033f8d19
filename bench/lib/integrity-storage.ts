// The bytes a tree store takes in Postgres, beside the bytes ClickHouse takes for the events it protects.
import type pg from 'pg';
import { sqlValue, type ClickHouseClient } from '@audit/shared/platform';

const TREE_STORE = ['integrity_tiles', 'integrity_leaf_events', 'integrity_subtrees'];

/**
 * Each table of the tree store (heap; its TOAST table with the TOAST index apart, when it holds any data: the
 * tiles' values are stored EXTERNAL, out of line) and each of their indexes, in bytes, and the leaves.
 */
export async function treeStoreBytes(pool: pg.Pool) {
  const { rows: tables } = await pool.query<{
    name: string;
    bytes: string;
    toast: string;
    toast_data: string;
  }>(
    `SELECT relname AS name, pg_table_size(oid) AS bytes,
       coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0) AS toast,
       coalesce(pg_relation_size(nullif(reltoastrelid, 0)), 0) AS toast_data
     FROM pg_class WHERE oid = ANY($1::regclass[]) ORDER BY relname`,
    [TREE_STORE],
  );
  const { rows: indexes } = await pool.query<{ name: string; bytes: string }>(
    `SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = ANY($1::regclass[]) ORDER BY c.relname`,
    [TREE_STORE],
  );
  const { rows: count } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM integrity_leaf_events');
  // pg_table_size counts the TOAST table and its index in the table's bytes: those are shown apart.
  const parts = [
    ...tables.flatMap((t) =>
      Number(t.toast_data) > 0
        ? [
            { name: t.name, bytes: Number(t.bytes) - Number(t.toast), index: false },
            { name: `${t.name} TOAST`, bytes: Number(t.toast), index: false },
          ]
        : [{ name: t.name, bytes: Number(t.bytes), index: false }],
    ),
    ...indexes.map((i) => ({ name: i.name, bytes: Number(i.bytes), index: true })),
  ];
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
