import { z } from 'zod';
import { UUID_PATTERN } from '@audit/shared/contract';
import { HOLD_STATUSES, holdCreateSchema, holdReleaseSchema } from '@audit/shared/retention';
import { parseOptions } from './cli-options.js';
import { tenantOption } from './tenant-request.js';

/** `holds list` options: the holds in force unless another status is asked for. */
export const holdsListSchema = z.object({
  tenant: tenantOption,
  status: z.enum(HOLD_STATUSES, { error: `must be one of ${HOLD_STATUSES.join(', ')}` }).default('active'),
});

/** `holds create` options: the reason and scope, checked by the rules the API checks a hold by. */
export const holdCreateOptionsSchema = z.object({ tenant: tenantOption, hold: holdCreateSchema });

/** `holds release` options. */
export const holdReleaseOptionsSchema = z.object({
  tenant: tenantOption,
  // Postgres would fail on a text that is no uuid, rather than find no hold: a usage error, found before it.
  id: z
    .string({ error: 'is required' })
    .regex(UUID_PATTERN, 'must be a hold id, a UUID')
    .transform((id) => id.toLowerCase()),
  release: holdReleaseSchema,
});

/** The scope's fields and the options that give them. */
export const SCOPE_OPTIONS = {
  user_id: 'user-id',
  resource_id: 'resource-id',
  patient_id: 'patient-id',
  since: 'since',
  until: 'until',
} as const;

const HOLD_OPTIONS = {
  'hold.reason': 'reason',
  ...Object.fromEntries(
    Object.entries(SCOPE_OPTIONS).map(([field, option]) => [`hold.scope.${field}`, option]),
  ),
};

export const parseHoldsList = (values: Record<string, unknown>) => parseOptions(holdsListSchema, values);

/** A scope field is left out when its option is: an absent field holds every value. */
export function parseHoldCreate(values: Record<string, unknown>) {
  const scope = Object.fromEntries(
    Object.entries(SCOPE_OPTIONS)
      .map(([field, option]) => [field, values[option]])
      .filter(([, value]) => value !== undefined),
  );
  return parseOptions(
    holdCreateOptionsSchema,
    { tenant: values.tenant, hold: { reason: values.reason, scope } },
    HOLD_OPTIONS,
  );
}

export const parseHoldRelease = (values: Record<string, unknown>) =>
  parseOptions(
    holdReleaseOptionsSchema,
    { tenant: values.tenant, id: values.id, release: { reason: values.reason } },
    { 'release.reason': 'reason' },
  );
