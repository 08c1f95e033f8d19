import { ClickHouseError } from '@clickhouse/client';
import { clickhouseErrorCode } from './clickhouse/clickhouse-client.js';
import pino, { type Logger } from 'pino';

export type { Logger };

/** Secrets never reach a log line, whatever object a caller passes. */
const REDACT = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'password',
  '*.password',
];

/** Services log to stdout; command-line tools pass fd 2 so their stdout stays machine-readable. */
export function createLogger(service: string, level = 'info', fd: 1 | 2 = 1): Logger {
  return pino(
    { level, base: { service }, redact: { paths: REDACT, censor: '[redacted]' } },
    pino.destination(fd),
  );
}

/**
 * An error as it may be logged: ClickHouse errors by code and type only, since their messages can quote the rows
 * of a failed insert (PHI); other errors by name and message.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const { code, type } = err as { code?: unknown; type?: unknown };
  if (err instanceof ClickHouseError) return { name: 'ClickHouseError', code, type };
  // 18.16's errors reach us as plain Errors (clickhouseErrorCode says why): their messages are left out too.
  const serverCode = clickhouseErrorCode(err);
  if (serverCode !== null) return { name: 'ClickHouseError', code: String(serverCode) };
  return {
    name: err.name,
    message: err.message,
    ...(code === undefined ? {} : { code }),
    ...(type === undefined ? {} : { type }),
  };
}
