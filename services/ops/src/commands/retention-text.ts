import { formatTimestamp } from '@audit/shared/contract';
import {
  scopeView,
  type HoldScope,
  type LegalHold,
  type PurgeProgress,
  type PurgeReport,
  type PurgeRun,
  type RetentionPolicy,
} from '@audit/shared/retention';
import { formatTable, quoted } from '../output.js';

// Every stored text (a reason, a scope's ids, who acted) is shown quoted: it cannot write control sequences to
// the terminal, whatever the API or an operator stored.

const time = (date: Date) => formatTimestamp(date.getTime());

/** "kept at least 30 days, at most 400 days (version 2, set … by "operator:ann")". */
export function policyText(policy: RetentionPolicy): string {
  const max = policy.max_days === null ? 'no maximum' : `at most ${policy.max_days} days`;
  const set =
    policy.changed_at === null
      ? 'the default policy, never set'
      : `version ${policy.version}, set ${time(policy.changed_at)} by ${quoted(policy.changed_by ?? '')}`;
  return `kept at least ${policy.min_days} days, ${max} (${set})`;
}

/** 'patient_id "p-1042", since 2025-01-01T00:00:00.000+00:00', or "every event" for a hold that sets no field. */
export function scopeText(scope: HoldScope): string {
  const fields = Object.entries(scopeView(scope)).map(([field, value]) =>
    field === 'since' || field === 'until' ? `${field} ${value}` : `${field} ${quoted(value)}`,
  );
  return fields.join(', ') || 'every event';
}

/** One line of a hold: its id, scope and reason. */
export const holdText = (hold: LegalHold) =>
  `hold ${hold.hold_id} (${scopeText(hold.scope)}; reason ${quoted(hold.reason)})`;

/** 'released 2026-… by "operator:ann" (reason "matter closed")', or "in force". */
export const releaseText = (hold: LegalHold) =>
  hold.released_at === null
    ? 'in force'
    : `released ${time(hold.released_at)} by ${quoted(hold.released_by ?? '')} (reason ${quoted(hold.release_reason ?? '')})`;

/** The holds as a table, with who released each and why unless only those in force are listed. */
export function holdsTable(holds: LegalHold[], withRelease: boolean): string {
  const columns = ['hold', 'created', 'created_by', 'scope', 'reason'];
  const rows = holds.map((h) => [
    h.hold_id,
    time(h.created_at),
    quoted(h.created_by),
    scopeText(h.scope),
    quoted(h.reason),
    ...(withRelease
      ? [
          h.released_at && time(h.released_at),
          h.released_by && quoted(h.released_by),
          h.release_reason && quoted(h.release_reason),
        ]
      : []),
  ]);
  const release = withRelease ? ['released', 'released_by', 'release_reason'] : [];
  return formatTable([...columns, ...release], rows);
}

/** What a purge did, or would do with --dry-run. */
export function purgeText(r: PurgeReport): string {
  if (r.purged_before === null) return `${r.tenant_id}: the policy has no maximum: nothing to purge`;
  const horizon = formatTimestamp(r.purged_before);
  const held = `${r.kept} kept by ${r.holds} hold${r.holds === 1 ? '' : 's'} in force`;
  return r.dry_run
    ? `${r.tenant_id}: would purge ${r.purged} events before ${horizon}; ${held} (dry run: nothing changed)`
    : `${r.tenant_id}: purged ${r.purged} events before ${horizon}; ${held}; ${r.export_files} export file${
        r.export_files === 1 ? '' : 's'
      } expired (purge ${r.purge_id})`;
}

/** Where a run has got, in words: "deleting, round 1, 2 of 4 tables done". */
function progressText(p: PurgeProgress): string {
  const round = p.round === null ? '' : `, round ${p.round}`;
  const tables = p.phase === 'deleting' ? `, ${p.tables_done} of ${p.tables} tables done` : '';
  return `${p.phase === 'waiting' ? 'waiting for the projector' : p.phase}${round}${tables}`;
}

/** The horizon and the last runs, a line each. */
export function purgeStatusText(tenant: string, status: { purgedBefore: number | null; runs: PurgeRun[] }) {
  const horizon =
    status.purgedBefore === null
      ? `${tenant}: never purged`
      : `${tenant}: events before ${formatTimestamp(status.purgedBefore)} purged, unless held`;
  const runs = status.runs.map((run) => {
    const at = run.progress === null ? '' : ` (${progressText(run.progress)})`;
    const outcome =
      run.status === 'succeeded'
        ? `${run.purged} purged, ${run.kept} kept`
        : run.status === 'failed'
          ? `failed${at}: ${quoted(run.error ?? '')}`
          : `running${at}`;
    return `purge ${run.purge_id} started ${time(run.started_at)} by ${quoted(run.started_by)}: before ${formatTimestamp(run.purged_before)}, ${outcome}`;
  });
  return [horizon, ...runs].join('\n');
}
