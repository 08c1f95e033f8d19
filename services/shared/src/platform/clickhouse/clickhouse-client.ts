import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseSettings } from '../config/components.js';

export type { ClickHouseClient };

/**
 * One HTTP client per process; `database` may be overridden for administrative statements, and the timeout for
 * an operator's long statements (copying a generation). Without `keepAlive`, every request goes on a connection of
 * its own (`Connection: close`): what an insert whose views must all fire needs (clickhouse.sink.ts).
 */
export function createClickHouse(
  settings: ClickHouseSettings,
  database = settings.database,
  requestTimeoutMs = 30_000,
  { keepAlive = true }: { keepAlive?: boolean } = {},
): ClickHouseClient {
  return createClient({
    url: settings.url,
    username: settings.user,
    password: settings.password,
    database,
    request_timeout: requestTimeoutMs,
    compression: { request: false, response: false },
    max_open_connections: 16,
    keep_alive: { enabled: keepAlive },
    // 64-bit integers arrive in JSON as strings, whatever the server's default (18.16 quotes them, current
    // engines may not): our parsers read them as text, and numbers past 2^53 keep every digit.
    // On a cluster (docs/operations.md "ClickHouse cluster") an insert through a `Distributed` table is
    // acknowledged once the shards have its rows, not once the answering node has queued them; and a query over
    // one `Distributed` table whose IN or JOIN reads another reads, on each shard, that shard's local table:
    // every such table is sharded by tenant and every query is of one tenant, so its rows are all there.
    clickhouse_settings: {
      output_format_json_quote_64bit_integers: 1,
      ...(settings.cluster ? { insert_distributed_sync: 1, distributed_product_mode: 'local' } : {}),
    },
    // The client's own log prints a failed query's text and settings, which can hold a tenant's values; every
    // error reaches our code, which logs it by code and type only (logger.ts).
    log: { level: ClickHouseLogLevel.OFF },
  });
}

/** Readiness: resolves when the server answers its ping, rejects with the client's error otherwise. */
export async function clickhouseReady(client: ClickHouseClient): Promise<void> {
  const result = await client.ping();
  if (!result.success) throw result.error;
}

/**
 * The server's error code of a failed query, or null for any other failure. The client parses the code only from
 * messages that end in the error's name, which current servers add and 18.16 does not ("Code: 158, e.displayText()
 * = DB::Exception: ..."), so the message is read too.
 */
export function clickhouseErrorCode(err: unknown): number | null {
  if (err instanceof ClickHouseError) return Number(err.code);
  const code = err instanceof Error ? /^Code: (\d+)[,.]/.exec(err.message) : null;
  return code ? Number(code[1]) : null;
}

// Codes for rows the server refuses for what they hold, whatever the moment: parse and conversion failures, values
// out of range, violated constraints. Everything else (network, timeouts, memory, "too many parts" while merges
// catch up, missing tables during a migration) may pass on a retry and is retried.
const DATA_ERROR_CODES = new Set([6, 26, 27, 38, 41, 53, 69, 70, 72, 117, 131, 321, 469]);

/**
 * Why an insert can never succeed as it is, or null when a retry may succeed. Besides refused data, a block
 * spanning more partitions than the server's `max_partitions_per_insert_block` (code 252, which also means the
 * transient "too many parts") fails on every retry, yet passes in smaller pieces. Only the code is kept: a
 * message may quote the rows (PHI).
 */
export function permanentInsertError(err: unknown): string | null {
  const code = clickhouseErrorCode(err);
  if (code === null) return null;
  const message = err instanceof Error ? err.message : '';
  const tooManyPartitions = code === 252 && message.includes('max_partitions_per_insert_block');
  if (!DATA_ERROR_CODES.has(code) && !tooManyPartitions) return null;
  const type = err instanceof ClickHouseError ? ` ${err.type}` : '';
  return `ClickHouse refused the insert: code ${code}${type}${tooManyPartitions ? ' (max_partitions_per_insert_block)' : ''}`;
}
