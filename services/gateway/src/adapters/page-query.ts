import { clickhouseErrorCode, sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';

export async function rows<T>(
  client: ClickHouseClient,
  query: string,
  settings?: { max_rows_to_read: string },
): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow', clickhouse_settings: settings })).json<T>();
}

export interface WindowRead {
  order?: string;
  /** Refuse the read, before it reads anything, if its key ranges hold more rows (see overBudget). */
  maxRows?: number;
}

/** One page's reads of one table: its fixed conditions (tenant, slice, filters, cursor) and a time window each. */
export function pageQuery(client: ClickHouseClient, table: string, conditions: readonly string[]) {
  return <R>(columns: string, from: number, to: number, limit: number, read: WindowRead = {}) =>
    rows<R>(
      client,
      `SELECT ${columns} FROM ${sqlIdentifier(table)}
       WHERE ${[...conditions, `ts >= ${sqlValue(from)}`, `ts < ${sqlValue(to)}`].join(' AND ')}
       ORDER BY ${read.order ?? 'ts DESC, event_id DESC'} LIMIT ${sqlValue(limit)}`,
      read.maxRows === undefined ? undefined : { max_rows_to_read: String(read.maxRows) },
    );
}

export type PageQuery = ReturnType<typeof pageQuery>;

const TOO_MANY_ROWS = 158;

/**
 * Null where ClickHouse refused a read for `max_rows_to_read` (TOO_MANY_ROWS, code 158). It counts the rows of
 * the granules the primary key selects before reading any, in 18.16 as in current versions, so a window guessed
 * too wide costs one round trip, not a scan.
 */
export function overBudget(err: unknown): null {
  if (clickhouseErrorCode(err) === TOO_MANY_ROWS) return null;
  throw err;
}
