import { z } from 'zod';

/** Six years of days (two of them leap days): HIPAA's documentation period, every tenant's minimum by default. */
export const DEFAULT_MIN_DAYS = 2192;
/** The longest a policy may name: a hundred years. */
export const MAX_POLICY_DAYS = 36_500;

/**
 * How long a tenant's events are kept (docs/retention.md): never purged before `min_days`, purged once older than
 * `max_days` when it is set. `version` counts the changes; 0 is the default policy, never set.
 */
export interface RetentionPolicy {
  min_days: number;
  max_days: number | null;
  version: number;
  /** Null for the default policy. */
  changed_at: Date | null;
  changed_by: string | null;
}

export const DEFAULT_POLICY: RetentionPolicy = Object.freeze({
  min_days: DEFAULT_MIN_DAYS,
  max_days: null,
  version: 0,
  changed_at: null,
  changed_by: null,
});

const DAYS_RULE = `must be a whole number of days from 1 to ${MAX_POLICY_DAYS}`;
const days = z.number(DAYS_RULE).int(DAYS_RULE).min(1, DAYS_RULE).max(MAX_POLICY_DAYS, DAYS_RULE);

/** A policy as it is set: both bounds given (`max_days` null: none), the maximum not below the minimum. */
export const policyChangeSchema = z
  .strictObject({
    min_days: days.meta({ description: 'Events are never purged before they are this many days old.' }),
    max_days: days.nullable().meta({
      description: 'Events are purged once older than this many days; null: kept for ever.',
    }),
  })
  .refine((p) => p.max_days === null || p.max_days >= p.min_days, {
    path: ['max_days'],
    message: 'must not be less than min_days',
  });
export type PolicyChange = z.output<typeof policyChangeSchema>;
