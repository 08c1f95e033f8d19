import { formatTimestamp } from '../contract/time.js';
import type { PatientAccessFormat, ReportMode } from './patient-access-report.js';

/** Who read a report: an API key (or a viewer token acting for one), or an operator through `ops`. */
export interface ReportReader {
  tenant_id: string;
  user_id: string;
  user_role: string;
  source_ip: string;
  user_agent: string;
}

/**
 * docs/reports.md "Audit": every report read writes `audit.report.patient_access` before any row leaves, naming the
 * patient (so that the trail shows who read whose report), the window, the mode and format, and how many rows it
 * gave; one refused for a missing scope writes it with success false. A report shows PHI: phi_involved.
 */
export function patientAccessAuditEvent(
  reader: ReportReader,
  reportId: string,
  outcome:
    | {
        success: true;
        patientId: string;
        window: { since: number; until: number };
        mode: ReportMode;
        format: PatientAccessFormat;
        rows: number;
      }
    | { success: false; reason: string },
) {
  return {
    ...reader,
    user_agent: reader.user_agent.slice(0, 1024),
    action: 'audit.report.patient_access',
    resource_type: 'patient_access_report',
    resource_id: reportId,
    phi_involved: outcome.success,
    success: outcome.success,
    ...(outcome.success
      ? {
          patient_id: outcome.patientId,
          details: {
            since: formatTimestamp(outcome.window.since),
            until: formatTimestamp(outcome.window.until),
            mode: outcome.mode,
            format: outcome.format,
            rows: outcome.rows,
          },
        }
      : { details: { reason: outcome.reason } }),
  };
}
