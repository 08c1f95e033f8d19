import type { ClickHouseClient } from '@clickhouse/client';
import { formatTimestamp } from '../contract/time.js';
import type { IntegrityStore } from '../integrity/integrity.store.js';
import { sqlIdentifier, sqlValue } from '../platform/clickhouse/sql-quote.js';
import { filterConditions, type EventFilters } from '../projection/event-filters.js';
import { FILTER_DIMS } from '../projection/filter-index.js';
import type { LiveGeneration } from '../projection/live-tables.js';
import type { PatientAccessRow } from './patient-access-report.js';
import { reportRow, type ReportSource } from './patient-access-rows.js';
import { MAX_REPORT_ROWS } from './patient-access-window.js';

/** What a report shows of an event: every column but `details` and `user_agent`, which it never shows. */
const REPORT_COLUMNS =
  'event_id, ts, action, user_id, user_role, resource_type, resource_id, fields_accessed, phi_involved, source_ip, justification, success, purpose_of_use, recipient, disclosure, accounting_exclusion';

type ReportColumns = Omit<ReportSource, 'phi_involved' | 'success' | 'disclosure'> & {
  ts: string;
  phi_involved: number;
  success: number;
  disclosure: number;
};

// The reports' own reads: in the trail, naming the patient, but no rows of a report, each of which would otherwise
// add one to the next (docs/reports.md "Audit"). A range rather than LIKE, as the action prefix filter reads.
const NOT_A_REPORT = "NOT (action >= 'audit.report.' AND action < 'audit.report/')";

/** A report is larger than MAX_REPORT_ROWS: it is sorted whole, so such a window is narrowed rather than read. */
export class ReportTooLargeError extends Error {
  override name = 'ReportTooLargeError';
}

/** The query of a report's events: the patient's slice of the filter index where it is complete, else the events. */
function reportQuery(
  tables: LiveGeneration,
  tenantId: string,
  filters: EventFilters & { patient_id: string },
) {
  const conditions = [`tenant_id = ${sqlValue(tenantId)}`, ...filterConditions(filters), NOT_A_REPORT];
  if (tables.indexed) {
    conditions.push(`dim = ${sqlValue(FILTER_DIMS.patient_id)}`, `value = ${sqlValue(filters.patient_id)}`);
  }
  // LIMIT 1 BY: a row the safety nets of the ReplacingMergeTrees keep twice until a merge is one event.
  return `SELECT ${REPORT_COLUMNS} FROM ${sqlIdentifier(tables.indexed ? tables.index : tables.events)}
    WHERE ${conditions.join(' AND ')}
    ORDER BY ts DESC, event_id DESC LIMIT 1 BY event_id LIMIT ${MAX_REPORT_ROWS + 1}`;
}

/** An event a report is made of: what its row shows, and its time in epoch milliseconds. */
export type ReportEvent = ReportSource & { timestampMs: number };

/**
 * Every event of the report's filters (the patient, the window, a viewer token's narrowing), newest first. More
 * than MAX_REPORT_ROWS throws ReportTooLargeError.
 */
export async function readReportEvents(
  clickhouse: ClickHouseClient,
  tables: LiveGeneration,
  tenantId: string,
  filters: EventFilters & { patient_id: string },
): Promise<ReportEvent[]> {
  const result = await clickhouse.query({
    query: reportQuery(tables, tenantId, filters),
    format: 'JSONEachRow',
  });
  const found = await result.json<ReportColumns>();
  if (found.length > MAX_REPORT_ROWS) throw new ReportTooLargeError(`more than ${MAX_REPORT_ROWS} events`);
  return found.map(({ ts, ...row }) => ({
    ...row,
    timestampMs: Number(ts),
    phi_involved: row.phi_involved === 1,
    success: row.success === 1,
    disclosure: row.disclosure === 1,
  }));
}

/** The events as report rows, each with the checkpoint that covers it (one round trip to the trees). */
export async function reportRows(
  integrity: Pick<IntegrityStore, 'coveringCheckpoints'>,
  tenantId: string,
  events: readonly ReportEvent[],
): Promise<PatientAccessRow[]> {
  const checkpoints = await integrity.coveringCheckpoints(
    tenantId,
    events.map((e) => e.event_id),
  );
  return events.map((event) => {
    const covering = checkpoints.get(event.event_id);
    return reportRow(
      event,
      event.timestampMs,
      covering ? { tree_size: covering.tree_size, signed_at: formatTimestamp(covering.made_at) } : null,
    );
  });
}

/** A report's rows: its events read, then their checkpoints. */
export async function readPatientAccess(
  deps: { clickhouse: ClickHouseClient; integrity: Pick<IntegrityStore, 'coveringCheckpoints'> },
  tables: LiveGeneration,
  tenantId: string,
  filters: EventFilters & { patient_id: string },
): Promise<PatientAccessRow[]> {
  return reportRows(
    deps.integrity,
    tenantId,
    await readReportEvents(deps.clickhouse, tables, tenantId, filters),
  );
}
