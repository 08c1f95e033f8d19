import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseSettings } from '../config/components.js';

export type { ClickHouseClient };

/**
 * One HTTP client per process; `database` may be overridden for administrative statements, and the timeout for
 * an operator's long statements (copying a generation).
 */
export function createClickHouse(
  settings: ClickHouseSettings,
  database = settings.database,
  requestTimeoutMs = 30_000,
): ClickHouseClient {
  return createClient({
    url: settings.url,
    username: settings.user,
    password: settings.password,
    database,
    request_timeout: requestTimeoutMs,
    compression: { request: false, response: false },
    max_open_connections: 16,
    // 64-bit integers arrive in JSON as strings, whatever the server's default (18.16 quotes them, current
    // engines may not): our parsers read them as text, and numbers past 2^53 keep every digit.
    clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
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
