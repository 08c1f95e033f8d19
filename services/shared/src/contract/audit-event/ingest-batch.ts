import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../time.js';
import {
  isReservedAction,
  MAX_FUTURE_SKEW_MS,
  RESERVED_ACTION_PREFIXES,
  type AuditEventRecord,
} from './audit-event.js';
import { ingestEventSchema, type IngestEvent } from './ingest.schema.js';
import { LEAF_SEED_BYTES } from './leaf-salts.js';
import { zodFieldErrors, type FieldError } from '../../platform/validation/zod-field-errors.js';

export interface IndexedFieldError extends FieldError {
  index: number;
}

export type BatchResult =
  { ok: true; records: AuditEventRecord[] } | { ok: false; errors: IndexedFieldError[] };

export interface IngestContext {
  clock: Clock;
  newId?: () => string;
  /** Refuse the service's own actions: true for the ingest API, whose producers are not the service. */
  refuseReserved?: boolean;
}

const RESERVED_MESSAGE = `is written by the audit service itself (${RESERVED_ACTION_PREFIXES.map((p) => `${p}*`).join(', ')})`;

function toRecord(event: IngestEvent, now: number, newId: () => string, seed: string): AuditEventRecord {
  return {
    event_id: event.event_id ?? newId(),
    timestamp: event.timestamp ?? now,
    tenant_id: event.tenant_id,
    action: event.action,
    user_id: event.user_id,
    user_role: event.user_role,
    resource_type: event.resource_type,
    resource_id: event.resource_id,
    fields_accessed: JSON.stringify(event.fields_accessed),
    phi_involved: event.phi_involved,
    source_ip: event.source_ip,
    user_agent: event.user_agent,
    justification: event.justification,
    success: event.success,
    details: event.details,
    ingested_at: now,
    patient_id: event.patient_id,
    purpose_of_use: event.purpose_of_use,
    recipient: event.recipient,
    disclosure: event.disclosure,
    accounting_exclusion: event.accounting_exclusion,
    leaf_salts: seed,
  };
}

/** Validates a whole batch: one bad event rejects all of it, with every problem listed by index and field. */
export function validateBatch(items: readonly unknown[], ctx: IngestContext): BatchResult {
  const now = ctx.clock();
  const newId = ctx.newId ?? randomUUID;
  const errors: IndexedFieldError[] = [];
  const records: AuditEventRecord[] = [];
  // Every event's leaf commits to its personal fields through salted hashes (docs/integrity.md "Version 3"): a fresh
  // random seed per event, which its salts derive from, drawn for the whole batch at once.
  const seeds = randomBytes(LEAF_SEED_BYTES * items.length);
  items.forEach((item, index) => {
    const parsed = ingestEventSchema.safeParse(item);
    if (!parsed.success) {
      errors.push(...zodFieldErrors(parsed.error, '(event)').map((e) => ({ index, ...e })));
      return;
    }
    if (ctx.refuseReserved && isReservedAction(parsed.data.action)) {
      errors.push({ index, field: 'action', message: RESERVED_MESSAGE });
      return;
    }
    const seed = seeds.subarray(index * LEAF_SEED_BYTES, (index + 1) * LEAF_SEED_BYTES).toString('base64');
    const record = toRecord(parsed.data, now, newId, seed);
    if (record.timestamp > now + MAX_FUTURE_SKEW_MS) {
      errors.push({ index, field: 'timestamp', message: 'must not be more than 5 minutes in the future' });
      return;
    }
    records.push(record);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, records };
}
