import { z } from 'zod';
import { policyChangeSchema } from '@audit/shared/retention';
import { parseOptions, type Parsed } from './cli-options.js';
import { tenantOption } from './tenant-request.js';

// Digits only: "1e3", "30.5" or "30d" is refused rather than read as some other number of days.
const days = (required: string) =>
  z
    .string({ error: required })
    .regex(/^[0-9]{1,9}$/, 'must be a whole number of days')
    .transform(Number);

/** `retention show` and `retention status` options. */
export const retentionShowSchema = z.object({ tenant: tenantOption });

/** `retention purge` options. */
export const retentionPurgeSchema = z.object({ tenant: tenantOption, dry_run: z.boolean() });

/** `retention set` options: both bounds, checked by the rules the API checks a policy by. */
export const retentionSetSchema = z.object({
  tenant: tenantOption,
  policy: z
    .object({
      min_days: days('is required'),
      max_days: days('is required: a number of days, or --no-max for no maximum').nullable(),
    })
    .pipe(policyChangeSchema),
});
export type RetentionSetRequest = z.output<typeof retentionSetSchema>;

const POLICY_OPTIONS = { 'policy.min_days': 'min-days', 'policy.max_days': 'max-days' };

export const parseRetentionShow = (values: Record<string, unknown>) =>
  parseOptions(retentionShowSchema, values);

export const parseRetentionPurge = (values: Record<string, unknown>) =>
  parseOptions(
    retentionPurgeSchema,
    { tenant: values.tenant, dry_run: values['dry-run'] === true },
    { dry_run: 'dry-run' },
  );

/** `--no-max` stands for a maximum of null: a policy names both bounds, so one of the two is required. */
export function parseRetentionSet(values: Record<string, unknown>): Parsed<RetentionSetRequest> {
  const noMax = values['no-max'] === true;
  const parsed = parseOptions(
    retentionSetSchema,
    {
      tenant: values.tenant,
      policy: { min_days: values['min-days'], max_days: noMax ? null : values['max-days'] },
    },
    POLICY_OPTIONS,
  );
  if (!noMax || values['max-days'] === undefined) return parsed;
  const both = '--no-max: cannot be given with --max-days';
  return { ok: false, errors: [...(parsed.ok ? [] : parsed.errors), both] };
}
