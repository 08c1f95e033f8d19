// What ClickHouse itself recorded about the benchmark's queries (the local server logs every query:
// infra/local/clickhouse/users.xml sets log_queries=1).
import { randomBytes } from 'node:crypto';
import { sleep, sqlValue, type ClickHouseClient } from '@audit/shared/platform';

export interface LoggedQuery {
  query: string;
  read_rows: number;
  result_rows: number;
  query_duration_ms: number;
}

async function all<T>(ch: ClickHouseClient, query: string): Promise<T[]> {
  return (await ch.query({ query, format: 'JSONEachRow' })).json<T>();
}

/**
 * A client whose queries carry the id `<run>:<label>:<n>`, so the log attributes each to the case that sent it;
 * everything else passes to the wrapped client unchanged.
 */
export function labelledClient(client: ClickHouseClient) {
  const run = `bench${randomBytes(4).toString('hex')}`;
  let label = 'none';
  let n = 0;
  const labelled = new Proxy(client, {
    get(target, prop) {
      if (prop === 'query') {
        return (params: Parameters<ClickHouseClient['query']>[0]) =>
          target.query({ ...params, query_id: `${run}:${label}:${n++}` });
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: labelled, run, label: (next: string) => (label = next) };
}

/** Per label: queries and rows read, summed over the finished queries of the run. */
export async function labelStats(ch: ClickHouseClient, run: string) {
  await ch.command({ query: 'SYSTEM FLUSH LOGS' });
  const rows = await all<{ label: string; queries: string; read_rows: string }>(
    ch,
    `SELECT splitByChar(':', query_id)[2] AS label, count() AS queries, sum(read_rows) AS read_rows
     FROM system.query_log
     WHERE type = 2 AND query_id LIKE ${sqlValue(`${run}:%`)}
     GROUP BY label`,
  );
  return new Map(rows.map((r) => [r.label, { queries: Number(r.queries), readRows: Number(r.read_rows) }]));
}

const serverSecond = async (ch: ClickHouseClient) =>
  Number((await all<{ t: string }>(ch, 'SELECT toUnixTimestamp(now()) AS t'))[0]!.t);

/**
 * The queries naming `marker` that `action` caused, the labelled ones (the benchmark's own) aside. The log has
 * second resolution, so the action starts in a second of its own, after everything earlier; within a second the
 * order is not kept.
 */
export async function captureQueries(
  ch: ClickHouseClient,
  marker: string,
  action: () => Promise<unknown>,
): Promise<LoggedQuery[]> {
  const before = await serverSecond(ch);
  while ((await serverSecond(ch)) <= before) await sleep(50);
  await action();
  await ch.command({ query: 'SYSTEM FLUSH LOGS' });
  const rows = await all<Record<keyof LoggedQuery, string>>(
    ch,
    `SELECT query, read_rows, result_rows, query_duration_ms FROM system.query_log
     WHERE type = 2 AND event_date >= yesterday() AND query_start_time > toDateTime(${before})
       AND position(query, ${sqlValue(marker)}) > 0 AND position(query, 'system.query_log') = 0
       AND NOT match(query_id, '^bench[0-9a-f]{8}:')
     ORDER BY query_start_time`,
  );
  return rows.map((r) => ({
    // The client appends the format; a replay names it again.
    query: r.query.replace(/\s+FORMAT\s+\w+\s*$/, ''),
    read_rows: Number(r.read_rows),
    result_rows: Number(r.result_rows),
    query_duration_ms: Number(r.query_duration_ms),
  }));
}
