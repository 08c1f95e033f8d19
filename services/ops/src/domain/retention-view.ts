import { formatTimestamp } from '@audit/shared/contract';
import { isActive, scopeView, type LegalHold, type RetentionPolicy } from '@audit/shared/retention';

const time = (date: Date | null) => (date === null ? null : formatTimestamp(date.getTime()));

/** A policy as JSON: its bounds and version, whether it is the default (never set), who set it and when. */
export const policyView = (policy: RetentionPolicy) => ({
  min_days: policy.min_days,
  max_days: policy.max_days,
  version: policy.version,
  default: policy.version === 0,
  changed_at: time(policy.changed_at),
  changed_by: policy.changed_by,
});

/** A hold as JSON: times as RFC 3339 text, as its audit event gives its scope. */
export const holdView = (hold: LegalHold) => ({
  hold_id: hold.hold_id,
  status: isActive(hold) ? ('active' as const) : ('released' as const),
  reason: hold.reason,
  scope: scopeView(hold.scope),
  created_at: time(hold.created_at),
  created_by: hold.created_by,
  released_at: time(hold.released_at),
  released_by: hold.released_by,
  release_reason: hold.release_reason,
});
