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

export function createLogger(service: string, level = 'info'): Logger {
  return pino({ level, base: { service }, redact: { paths: REDACT, censor: '[redacted]' } });
}
