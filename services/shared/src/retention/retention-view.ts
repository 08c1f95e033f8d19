import { formatTimestamp } from '../contract/time.js';
import { scopeView } from './retention-audit-event.js';
import { isActive, type LegalHold } from './legal-hold.js';
import type { PurgeRun } from './purge.repository.js';
import type { RetentionPolicy } from './retention-policy.js';

const time = (date: Date | null) => (date === null ? null : formatTimestamp(date.getTime()));

/**
 * A policy as the API and `ops --json` give it: its bounds and version, who set it and when, and whether it is the
 * default (never set). Times as the API's time text.
 */
export const policyView = (policy: RetentionPolicy) => ({
  min_days: policy.min_days,
  max_days: policy.max_days,
  version: policy.version,
  changed_at: time(policy.changed_at),
  changed_by: policy.changed_by,
  default: policy.version === 0,
});

/** A hold as the API and `ops --json` give it, its scope as its audit events have it. */
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

/** A purge run as the API and `ops --json` give it: times as the API's time text. */
export const purgeRunView = (run: PurgeRun) => ({
  ...run,
  purged_before: formatTimestamp(run.purged_before),
  started_at: formatTimestamp(run.started_at.getTime()),
  finished_at: time(run.finished_at),
});
