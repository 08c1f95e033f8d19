/** An audit event as the list and lookup return it (docs/api.md "Audit event"); later fields are kept, not shown. */
export interface AuditEvent {
  event_id: string;
  timestamp: string;
  action: string;
  user_id: string;
  user_role: string;
  resource_type: string;
  resource_id: string;
  fields_accessed: string;
  phi_involved: boolean;
  tenant_id: string;
  source_ip: string;
  user_agent: string;
  justification: string;
  success: boolean;
  details: string;
  patient_id?: string;
  purpose_of_use?: string;
  recipient?: string;
  disclosure?: boolean;
  accounting_exclusion?: string;
  leaf_salts?: string;
}

export interface EventPage {
  events: AuditEvent[];
  page: { next_cursor: string | null; has_more: boolean };
}

/** What the viewer token presented may do (GET …/viewer-tokens/current). */
export interface ViewerSession {
  id: string;
  expires_at: string;
  scopes: string[];
  narrowed_to: Record<string, string>;
}

/** A JSON text field (`details`, `fields_accessed`) indented for reading; as it is when it is not JSON. */
export function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}
