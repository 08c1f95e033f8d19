import { formatTimestamp } from '@audit/shared/contract';
import { purgeRunView, type PurgeReport, type PurgeRun } from '@audit/shared/retention';

const time = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));

/** A purge's report as --json prints it: times as RFC 3339 text. */
export const purgeView = (r: PurgeReport) => ({ ...r, purged_before: time(r.purged_before) });

/** The tenant's horizon and last runs as --json prints them. */
export const purgeStatusView = (
  tenant: string,
  status: { purgedBefore: number | null; runs: PurgeRun[] },
) => ({
  tenant_id: tenant,
  purged_before: time(status.purgedBefore),
  runs: status.runs.map(purgeRunView),
});
