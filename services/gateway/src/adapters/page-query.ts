import { sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared';

export async function rows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>();
}

/** One page's reads of one table: its fixed conditions (tenant, slice, filters, cursor) and a time window each. */
export function pageQuery(client: ClickHouseClient, table: string, conditions: readonly string[]) {
  return <R>(columns: string, from: number, to: number, limit: number, order = 'ts DESC, event_id DESC') =>
    rows<R>(
      client,
      `SELECT ${columns} FROM ${sqlIdentifier(table)}
       WHERE ${[...conditions, `ts >= ${sqlValue(from)}`, `ts < ${sqlValue(to)}`].join(' AND ')}
       ORDER BY ${order} LIMIT ${sqlValue(limit)}`,
    );
}

export type PageQuery = ReturnType<typeof pageQuery>;
