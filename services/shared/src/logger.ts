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
