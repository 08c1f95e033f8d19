import { parseArgs } from 'node:util';
import type { Logger } from '@audit/shared/platform';
import type { OpsConfig } from './config.js';

export const OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
  tenant: { type: 'string' },
  scopes: { type: 'string' },
  'ip-allow': { type: 'string' },
  label: { type: 'string' },
  prefix: { type: 'string' },
  queue: { type: 'string' },
  all: { type: 'boolean', default: false },
  limit: { type: 'string' },
  endpoint: { type: 'string' },
  partition: { type: 'string' },
  offset: { type: 'string' },
  to: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  since: { type: 'string' },
  until: { type: 'string' },
  abort: { type: 'boolean', default: false },
  'drop-old-after': { type: 'string' },
  id: { type: 'string' },
  status: { type: 'string' },
  wait: { type: 'boolean', default: false },
  name: { type: 'string' },
  'if-none': { type: 'boolean', default: false },
  partitions: { type: 'string' },
  keys: { type: 'string' },
  patient: { type: 'string' },
  mode: { type: 'string' },
  sort: { type: 'string' },
  order: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  'min-days': { type: 'string' },
  'max-days': { type: 'string' },
  'no-max': { type: 'boolean', default: false },
  reason: { type: 'string' },
  'user-id': { type: 'string' },
  'resource-id': { type: 'string' },
  'patient-id': { type: 'string' },
  days: { type: 'string' },
  forever: { type: 'boolean', default: false },
} as const;

export type CliValues = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** Prints the JSON form with --json, the human one otherwise. */
export type Print = (json: unknown, human: string) => void;

/** What a command is run with: its settings, a logger for problems, and where its output and notes go. */
export interface CliContext {
  config: OpsConfig;
  logger: Logger;
  print: Print;
  /** Text on stdout that is the command's output whatever --json says (a report); a line break follows it. */
  output: (text: string) => void;
  /** Progress on stderr, a line at most once a second: never part of the output. */
  progress: (done: number, total: number) => void;
  /** A line on stderr for the operator: never part of the output. */
  note: (text: string) => void;
}

/** Refuses options the command does not take (a stray one could otherwise widen what it acts on). */
export function onlyOptions(
  values: CliValues,
  command: string,
  allowed: readonly (keyof CliValues)[],
): string[] {
  const given = Object.entries(values).filter(([, v]) => v !== undefined && v !== false);
  return given
    .map(([k]) => k)
    .filter((k) => k !== 'json' && k !== 'help' && !(allowed as readonly string[]).includes(k))
    .map((k) => `--${k} does not apply to ${command}`);
}
