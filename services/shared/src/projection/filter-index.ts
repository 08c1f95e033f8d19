import type { SchemaWriter } from '../platform/clickhouse/schema-writer.js';
import { sqlIdentifier } from '../platform/clickhouse/sql-quote.js';
import type { ProjectionTables } from './projection-tables.js';

/** The events table's partitions: 30-day buckets of `ts` (0001_audit_events). */
export const EVENTS_PARTITION_MS = 2_592_000_000;

/**
 * At most this many partitions per insert: current ClickHouse refuses more in one insert block
 * (`max_partitions_per_insert_block`, 100 by default; 18.16 has no such limit).
 */
export const MAX_PARTITIONS_PER_INSERT = 100;

/** The events table's columns, in its order (0001_audit_events). */
export const EVENT_TABLE_COLUMNS = [
  ['tenant_id', 'String'],
  ['ts', 'Int64'],
  ['event_id', 'String'],
  ['action', 'String'],
  ['user_id', 'String'],
  ['user_role', 'String'],
  ['resource_type', 'String'],
  ['resource_id', 'String'],
  ['fields_accessed', 'String'],
  ['phi_involved', 'UInt8'],
  ['source_ip', 'String'],
  ['user_agent', 'String'],
  ['justification', 'String'],
  ['success', 'UInt8'],
  ['details', 'String'],
  ['ingested_at', 'Int64'],
  ['patient_id', 'String'],
  ['purpose_of_use', 'String'],
  ['recipient', 'String'],
  ['disclosure', 'UInt8'],
  ['accounting_exclusion', 'String'],
  ['leaf_salts', 'String'],
] as const;

/**
 * The columns the event's versions 2 and 3 added, with the defaults the events tables made before them give them:
 * the migrator adds them to every generation's events table (filter-index.state.ts).
 */
export const ADDED_EVENT_COLUMNS = [
  { name: 'patient_id', type: 'String', default: "''" },
  { name: 'purpose_of_use', type: 'String', default: "''" },
  { name: 'recipient', type: 'String', default: "''" },
  { name: 'disclosure', type: 'UInt8', default: '0' },
  { name: 'accounting_exclusion', type: 'String', default: "''" },
  { name: 'leaf_salts', type: 'String', default: "''" },
] as const;

/**
 * The filter fields with an access path of their own (docs/architecture.md, "Read path"): the filter index holds
 * one row per event and dimension whose value is not empty, ordered by tenant, dimension, value and time, so that
 * the events matching one value lie together in time order. Dimension 0 is every event: the summary counts it,
 * and the events table is its index.
 */
export const FILTER_DIMS = {
  action: 1,
  resource_type: 2,
  user_id: 3,
  resource_id: 4,
  source_ip: 5,
  phi_involved: 6,
  success: 7,
  patient_id: 8,
} as const;
export type FilterDim = keyof typeof FILTER_DIMS;

/** The summary's bucket: an hour of epoch milliseconds. */
export const BUCKET_MS = 3_600_000;

/** How a flag is spelled as a dimension value. */
export const flagValue = (flag: boolean) => (flag ? '1' : '0');

type Indexed = Record<Exclude<FilterDim, 'phi_involved' | 'success'>, string> & {
  phi_involved: boolean;
  success: boolean;
};

/** The (dimension, value) pairs of an event that the filter index holds, as its view derives them. */
export function indexedValues(e: Indexed): [number, string][] {
  return Object.entries(FILTER_DIMS)
    .map(([name, dim]): [number, string] => {
      const value = e[name as FilterDim];
      return [dim, typeof value === 'boolean' ? flagValue(value) : value];
    })
    .filter(([, value]) => value !== '');
}

// 365-day partitions (plain integers of epoch ms, like the events table's 30-day ones): a rare value's events
// lie across the whole history, and a read of them touches a granule in every part it spans, each with its own
// files per column. At 20 million events, a page of a value of 0.001 % took p50 54 / p99 98 ms over 30-day
// partitions (167 parts after merges) and p50 10 / p99 15 ms over 365-day ones (docs/benchmarks/journal.md).
export const INDEX_PARTITION_MS = 31_536_000_000;
const PARTITION = `intDiv(ts, ${INDEX_PARTITION_MS})`;

const dimPairs = Object.entries(FILTER_DIMS)
  .map(
    ([column, dim]) =>
      `(${dim}, ${column === 'phi_involved' || column === 'success' ? `toString(${column})` : column})`,
  )
  .join(', ');

const OTHER_COLUMNS = EVENT_TABLE_COLUMNS.map(([name]) => name).filter((name) => name !== 'tenant_id');

/** The filter index's rows for the events of `source` that satisfy `where`: what its view writes. */
export const indexRowsQuery = (source: string, where = '1') =>
  `SELECT tenant_id, d.1 AS dim, d.2 AS value, ${OTHER_COLUMNS.join(', ')}
   FROM ${sqlIdentifier(source)} ARRAY JOIN [${dimPairs}] AS d
   WHERE d.2 != '' AND (${where})`;

/** The summary's rows (events per tenant, dimension, value and hour) of the events of `source` that satisfy `where`. */
export const bucketRowsQuery = (source: string, where = '1') =>
  `SELECT tenant_id, d.1 AS dim, d.2 AS value, intDiv(ts, ${BUCKET_MS}) AS bucket, toInt64(count()) AS n
   FROM ${sqlIdentifier(source)} ARRAY JOIN [(0, ''), ${dimPairs}] AS d
   WHERE (d.1 = 0 OR d.2 != '') AND (${where})
   GROUP BY tenant_id, dim, value, bucket`;

/**
 * The filter index and its summary of one generation, with the views that fill them from its events table.
 * Re-runnable. The index is a ReplacingMergeTree only as a safety net, as the events table is: the projector
 * never writes an event twice. Counts are signed so that a repair can correct them.
 */
export async function createFilterIndex(schema: SchemaWriter, t: ProjectionTables): Promise<void> {
  const columns = EVENT_TABLE_COLUMNS.filter(([name]) => name !== 'tenant_id')
    .map(([name, type]) => `${name} ${type}`)
    .join(', ');
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${sqlIdentifier(t.index)} (tenant_id String, dim UInt8, value String, ${columns})
     ENGINE = ReplacingMergeTree PARTITION BY ${PARTITION} ORDER BY (tenant_id, dim, value, ts, event_id)
     SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${sqlIdentifier(t.buckets)}
     (tenant_id String, dim UInt8, value String, bucket Int64, n Int64)
     ENGINE = SummingMergeTree ORDER BY (tenant_id, dim, value, bucket)
     SETTINGS index_granularity = 1024`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${sqlIdentifier(t.indexView)} TO ${sqlIdentifier(t.index)}
     AS ${indexRowsQuery(t.events)}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${sqlIdentifier(t.bucketsView)} TO ${sqlIdentifier(t.buckets)}
     AS ${bucketRowsQuery(t.events)}`,
  ];
  for (const statement of statements) await schema.run(statement);
}
