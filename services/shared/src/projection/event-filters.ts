import { z } from 'zod';
import { sqlValue } from '../platform/clickhouse/sql-quote.js';
import { FILTER_DIMS, flagValue } from './filter-index.js';
import { parseRfc3339, RFC3339_RULE } from '../contract/time.js';
import { ACTION_PATTERN, FILTER_ENTRY_PATTERN } from '../contract/audit-event/audit-event.js';
import { canonicalIp } from '../contract/audit-event/ip-address.js';
import { patientIdText } from '../contract/audit-event/patient-id.js';
import { text } from '../contract/audit-event/text.js';

/**
 * A filter of the list and the export (docs/api.md, "Filters"): how its value is spelled in a query string and in
 * a JSON body, and the condition it puts on the events table's columns.
 */
interface FilterField<T> {
  query: z.ZodType<T, string>;
  body: z.ZodType<T>;
  sql: (value: T) => string;
  /** Its access path: the events of the filter index it selects (none: `since` and `until`, which bound time). */
  slice?: (value: T) => IndexSlice;
}

/** The filter index's events of one dimension: one value, or every value in [from, to). */
export type IndexSlice = { dim: number } & ({ value: string } | { from: string; to: string });

const field = <T>(spec: FilterField<T>) => spec;

/** A filter spelled the same in a query string and in a body (text, or a time). */
const sameIn = <T>(
  schema: z.ZodType<T, string>,
  sql: (value: T) => string,
  slice?: (value: T) => IndexSlice,
) => field({ query: schema, body: schema, sql, ...(slice ? { slice } : {}) });

/** An exact match on a text column with a dimension of its own. */
const column = (name: keyof typeof FILTER_DIMS, schema: z.ZodType<string, string>) =>
  sameIn(
    schema,
    (v) => `${name} = ${sqlValue(v)}`,
    (v) => ({ dim: FILTER_DIMS[name], value: v }),
  );

const exact = (description: string, example?: string) =>
  text(256)
    .min(1, 'must not be empty')
    .meta({ description, ...(example ? { example } : {}) });

const flag = (name: 'phi_involved' | 'success', description: string) =>
  field({
    query: z
      .enum(['true', 'false'], { message: 'must be true or false' })
      .transform((v) => v === 'true')
      .meta({ description }),
    body: z.boolean({ message: 'must be true or false' }).meta({ description }),
    sql: (v: boolean) => `${name} = ${sqlValue(v)}`,
    slice: (v: boolean) => ({ dim: FILTER_DIMS[name], value: flagValue(v) }),
  });

const time = (description: string, example: string) =>
  z
    .string()
    .meta({ format: 'date-time', example, description })
    .transform(
      (text, ctx) =>
        parseRfc3339(text) ??
        (ctx.addIssue({
          code: 'custom',
          message: RFC3339_RULE,
        }),
        z.NEVER),
    );

/** The smallest string above every string that starts with `prefix` (its last character is never the largest). */
const pastPrefix = (prefix: string) =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/**
 * Every filter, AND-combined. Validation, the OpenAPI parameters and export body, the SQL conditions, the cursor
 * binding and the reader's cache keys all follow from this table, so a new filter is one entry (and, where it
 * needs one, its access path). The order is part of the cursor's binding: add new entries at the end.
 */
export const FILTERS = {
  action: column(
    'action',
    z
      .string()
      .max(100)
      .regex(ACTION_PATTERN, 'must be a dotted lowercase slug such as phi.read')
      .meta({ description: 'Only events with exactly this action.', example: 'phi.read' }),
  ),
  resource_type: column('resource_type', exact('Only events on this resource type.', 'patient')),
  phi_involved: flag('phi_involved', '`true`: PHI events only; `false`: non-PHI only; omitted: both.'),
  since: sameIn(
    time(
      'Inclusive lower bound: RFC 3339 with Z or an offset, from 1970 to 9999.',
      '2025-11-01T00:00:00.000Z',
    ),
    (v) => `ts >= ${sqlValue(v)}`,
  ),
  until: sameIn(
    time(
      'Exclusive upper bound: RFC 3339 with Z or an offset, from 1970 to 9999.',
      '2026-11-01T00:00:00.000Z',
    ),
    (v) => `ts < ${sqlValue(v)}`,
  ),
  user_id: column('user_id', exact('Only events of this actor (exact).')),
  resource_id: column(
    'resource_id',
    exact('Only events on this resource id (exact), e.g. one patient record.'),
  ),
  success: flag(
    'success',
    '`true`: accepted accesses only; `false`: denied or failed ones only; omitted: both.',
  ),
  source_ip: column(
    'source_ip',
    z
      .string()
      .max(64)
      .transform(
        (s, ctx) =>
          canonicalIp(s) ??
          (ctx.addIssue({ code: 'custom', message: 'must be an IPv4 or IPv6 address' }), z.NEVER),
      )
      .meta({
        description:
          'Only events from this address, in any spelling: `::ffff:10.0.0.1` finds `10.0.0.1`, `0:0::1` finds `::1`.',
        example: '203.0.113.7',
      }),
  ),
  action_prefix: sameIn(
    z.string().regex(FILTER_ENTRY_PATTERN, 'must be 1 to 100 of a-z, 0-9, dot, underscore and hyphen').meta({
      description:
        'Only events whose action starts with this text, as in webhook filters: `phi.` matches `phi.read` and `phi.query`. With `action`, both must hold.',
      example: 'phi.',
    }),
    // A range rather than LIKE: no wildcard to escape, and the same on every ClickHouse version.
    (v) => `action >= ${sqlValue(v)} AND action < ${sqlValue(pastPrefix(v))}`,
    (v) => ({ dim: FILTER_DIMS.action, from: v, to: pastPrefix(v) }),
  ),
  patient_id: column(
    'patient_id',
    patientIdText().min(1, 'must not be empty').meta({
      description: "Only events concerning this patient (exact): the events' `patient_id`.",
      example: 'p-1042',
    }),
  ),
} as const;

export type FilterName = keyof typeof FILTERS;
export const FILTER_NAMES = Object.keys(FILTERS) as FilterName[];

/** The filters of one read, validated; times as epoch ms, `until` exclusive. */
export type EventFilters = {
  [K in FilterName]?: z.output<(typeof FILTERS)[K]['query']>;
};

/** The schema of every filter as it is spelled in `where` (a query string or a JSON body), each optional. */
export function filterShape(where: 'query' | 'body') {
  return Object.fromEntries(FILTER_NAMES.map((name) => [name, FILTERS[name][where].optional()])) as {
    [K in FilterName]: z.ZodOptional<(typeof FILTERS)[K]['query' | 'body']>;
  };
}

/** The conditions the filters put on the events table. */
export function filterConditions(filters: EventFilters): string[] {
  return FILTER_NAMES.flatMap((name) => {
    const value = filters[name];
    if (value === undefined) return [];
    return [(FILTERS[name].sql as (v: typeof value) => string)(value)];
  });
}

/**
 * One text per tenant and filters, the same for every spelling of the same read: what a cursor is bound to and
 * what the reader's caches are keyed by. Absent filters at the end are left out, so a cursor stays valid when a
 * filter is added to the table.
 */
export function filterKey(tenantId: string, filters: EventFilters): string {
  const values = FILTER_NAMES.map((name) => filters[name] ?? null);
  while (values.length > 0 && values.at(-1) === null) values.pop();
  return JSON.stringify([tenantId, ...values]);
}

/** An empty or reversed window is a mistake, not a question: 422 naming `since`. */
export function checkWindow(filters: { since?: number; until?: number }, ctx: z.RefinementCtx) {
  if (filters.since !== undefined && filters.until !== undefined && filters.since >= filters.until) {
    ctx.addIssue({ code: 'custom', path: ['since'], message: 'must be earlier than until' });
  }
}

/** The filter index's slices the filters select, one per filter with an access path of its own. */
export function filterSlices(filters: EventFilters): IndexSlice[] {
  return FILTER_NAMES.flatMap((name) => {
    const value = filters[name];
    const slice = FILTERS[name].slice as ((v: typeof value) => IndexSlice) | undefined;
    return value === undefined || !slice ? [] : [slice(value)];
  });
}

/** Drops the filters that were not given (a parsed object holds them as undefined). */
export const givenFilters = (parsed: Record<string, unknown>): EventFilters =>
  Object.fromEntries(
    FILTER_NAMES.filter((name) => parsed[name] !== undefined).map((name) => [name, parsed[name]]),
  ) as EventFilters;
