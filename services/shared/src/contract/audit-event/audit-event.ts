/** The event as it travels on the audit topic and is stored: times are epoch milliseconds, JSON fields are text. */
export interface AuditEventRecord {
  event_id: string;
  timestamp: number;
  tenant_id: string;
  action: string;
  user_id: string;
  user_role: string;
  resource_type: string;
  resource_id: string;
  fields_accessed: string;
  phi_involved: boolean;
  source_ip: string;
  user_agent: string;
  justification: string;
  success: boolean;
  details: string;
  ingested_at: number;
  /** Whose PHI the event concerns ("" when none was named); version 2 of the record. */
  patient_id: string;
  /** An HL7 v3 PurposeOfUse code (purpose-of-use.ts), or "". */
  purpose_of_use: string;
  /** Whom PHI was disclosed to: only on a disclosure. */
  recipient: string;
  /** PHI left the covered entity: a disclosure in HIPAA's sense, not a use within it. */
  disclosure: boolean;
  /** The paragraph of HIPAA 164.528(a)(1) the producer names for a disclosure it need not account for, or "". */
  accounting_exclusion: string;
  /**
   * What is kept of the salts of the fields a version 3 leaf commits to (docs/integrity.md "Version 3"), as base64:
   * their seed (leaf-salts.ts), or the salts themselves; "" for an event written before them, whose leaf is of
   * version 1 or 2. Version 3 of the record.
   */
  leaf_salts: string;
}

/** The version 2 fields of an event that names no patient, purpose or disclosure: what a version 1 record reads as. */
export const NO_PATIENT_FIELDS = {
  patient_id: '',
  purpose_of_use: '',
  recipient: '',
  disclosure: false,
  accounting_exclusion: '',
} as const satisfies Partial<AuditEventRecord>;

export const TENANT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const ACTION_PATTERN = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)+$/;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Stored ids are lowercase: ingest normalizes them. */
export const STORED_UUID_PATTERN = new RegExp(UUID_PATTERN.source);
export const MAX_DETAILS_BYTES = 64 * 1024;

/**
 * Actions only the service itself writes (docs/ingest.md, "Reserved actions"): API key, webhook, signing key,
 * tenant name, retention policy, legal hold, viewer token, display template and export job changes and everything
 * under `audit.` (exports, reports). Ingest refuses them, so none in a trail can come from a producer.
 */
export const RESERVED_ACTION_PREFIXES = [
  'admin.key.',
  'admin.webhook.',
  'admin.integrity.',
  'admin.tenant.',
  'admin.retention.',
  'admin.legal_hold.',
  'admin.viewer_token.',
  'admin.display_template.',
  'admin.export.',
  'audit.',
] as const;
export const isReservedAction = (action: string) =>
  RESERVED_ACTION_PREFIXES.some((prefix) => action.startsWith(prefix));
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/** An entry of an action filter (a webhook's, a list's): a prefix of the action. */
export const FILTER_ENTRY_PATTERN = /^[a-z0-9._-]{1,100}$/;
