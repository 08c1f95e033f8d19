import { formatTimestamp } from '../contract/time.js';
import type { LegalHold, HoldScope } from './legal-hold.js';
import type { RetentionPolicy } from './retention-policy.js';

/** Who made a change, as its audit event names them: an API key (with its caller's address) or an operator. */
export interface RetentionActor {
  user_id: string;
  user_role: string;
  source_ip: string;
  user_agent: string;
}

const bounds = (p: Pick<RetentionPolicy, 'min_days' | 'max_days'>) => ({
  min_days: p.min_days,
  max_days: p.max_days,
});

const base = (tenant: string, actor: RetentionActor) => ({
  tenant_id: tenant,
  user_id: actor.user_id,
  user_role: actor.user_role,
  source_ip: actor.source_ip,
  user_agent: actor.user_agent.slice(0, 1024),
  phi_involved: false,
  success: true,
});

/** `admin.retention.update` (docs/retention.md "Audit"): the policy set, the one it replaced, its version. */
export function retentionPolicyEvent(
  tenant: string,
  actor: RetentionActor,
  policy: RetentionPolicy,
  previous: RetentionPolicy,
) {
  return {
    ...base(tenant, actor),
    action: 'admin.retention.update',
    resource_type: 'retention_policy',
    resource_id: tenant,
    details: { ...bounds(policy), version: policy.version, previous: bounds(previous) },
  };
}

/** The scope as a hold's audit event and its API view show it: times as the API's time text. */
export const scopeView = (scope: HoldScope) => ({
  ...(scope.user_id !== undefined && { user_id: scope.user_id }),
  ...(scope.resource_id !== undefined && { resource_id: scope.resource_id }),
  ...(scope.patient_id !== undefined && { patient_id: scope.patient_id }),
  ...(scope.since !== undefined && { since: formatTimestamp(scope.since) }),
  ...(scope.until !== undefined && { until: formatTimestamp(scope.until) }),
});

/**
 * `admin.legal_hold.create` or `.release` (docs/retention.md "Audit"). The scope stays in the details: a hold is
 * no access to a patient's records, so the event names no `patient_id` and no patient's access report lists it.
 */
export function legalHoldEvent(tenant: string, actor: RetentionActor, hold: LegalHold) {
  const released = hold.released_at !== null;
  return {
    ...base(tenant, actor),
    action: released ? 'admin.legal_hold.release' : 'admin.legal_hold.create',
    resource_type: 'legal_hold',
    resource_id: hold.hold_id,
    details: released
      ? { reason: hold.release_reason, held_because: hold.reason, scope: scopeView(hold.scope) }
      : { reason: hold.reason, scope: scopeView(hold.scope) },
  };
}

/**
 * `admin.retention.purge` (docs/retention.md "Audit"): written before the purge removes anything, with the horizon
 * and how many events it is about to remove, so that the trail never lacks a purge that happened.
 */
export function retentionPurgeEvent(
  tenant: string,
  actor: RetentionActor,
  purge: { purge_id: string; purged_before: number; holds: number; events: number },
) {
  return {
    ...base(tenant, actor),
    action: 'admin.retention.purge',
    resource_type: 'retention_purge',
    resource_id: purge.purge_id,
    details: {
      purged_before: formatTimestamp(purge.purged_before),
      holds: purge.holds,
      events: purge.events,
    },
  };
}
