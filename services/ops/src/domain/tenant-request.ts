import { z } from 'zod';
import { TENANT_ID_PATTERN } from '@audit/shared/contract';
import { MAX_DISPLAY_NAME } from '@audit/shared/tenants';
import { parseOptions } from './cli-options.js';

/** A tenant id, as ingest takes it: a wrong one is refused before anything connects. */
export const tenantOption = z
  .string({ error: 'is required' })
  .regex(TENANT_ID_PATTERN, 'must be a tenant id: 1..64 of [A-Za-z0-9._-]');

// Counted in code points, as Postgres counts the column's length (0029_tenant_profiles): UTF-16 units would refuse
// names it takes. The name heads the reports a patient reads, on one line: no control character, kept as given.
const displayName = z
  .string({ error: 'is required' })
  .refine((name) => name.trim() !== '', 'must not be empty')
  .refine((name) => [...name].length <= MAX_DISPLAY_NAME, `is at most ${MAX_DISPLAY_NAME} characters`)
  .refine((name) => !/\p{Cc}/u.test(name), 'must be one line without control characters')
  .refine((name) => name.trim() === '' || name.trim() === name, 'must not start or end with white space');

/** `tenants show` options. */
export const tenantShowSchema = z.object({ tenant: tenantOption });

/** `tenants set-name` options. */
export const tenantSetNameSchema = z.object({ tenant: tenantOption, name: displayName });

export const parseTenantShow = (values: Record<string, unknown>) => parseOptions(tenantShowSchema, values);
export const parseTenantSetName = (values: Record<string, unknown>) =>
  parseOptions(tenantSetNameSchema, values);
