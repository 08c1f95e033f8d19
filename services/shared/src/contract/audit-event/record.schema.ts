import { z } from 'zod';
import { MAX_EPOCH_MS } from '../time.js';
import { isAccountingExclusion } from './disclosure.js';
import { isPurposeOfUse } from './purpose-of-use.js';
import { isStoredLeafSalts, LEAF_SALTS_BYTES, LEAF_SEED_BYTES } from './leaf-salts.js';
import { ACTION_PATTERN, MAX_DETAILS_BYTES, STORED_UUID_PATTERN, TENANT_ID_PATTERN } from './audit-event.js';

const jsonText = (check: (value: unknown) => boolean, message: string) =>
  z.string().refine((s) => {
    try {
      return check(JSON.parse(s));
    } catch {
      return false;
    }
  }, message);

// Strings decoded from UTF-8 cannot hold unpaired surrogates, so a length check is all they need here.
const bounded = (max: number) => z.string().max(max);

const epochMs = z.number().int().min(0).max(MAX_EPOCH_MS);

/**
 * Guards what consumers read off the topic: a record that decodes but breaks these rules (an old or foreign
 * producer) is dead-lettered, never stored. Not strict: avsc records carry prototype methods, and the reader
 * schema already fixed the field set; parsing yields a plain object of exactly these fields.
 */
export const auditEventRecordSchema = z.object({
  event_id: z.string().regex(STORED_UUID_PATTERN, 'must be a lowercase UUID'),
  timestamp: epochMs,
  tenant_id: z.string().regex(TENANT_ID_PATTERN),
  action: z.string().max(100).regex(ACTION_PATTERN),
  user_id: bounded(256).min(1),
  user_role: bounded(256),
  resource_type: bounded(256).min(1),
  resource_id: bounded(256),
  fields_accessed: jsonText(
    (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
    'must be a JSON array of strings',
  ),
  phi_involved: z.boolean(),
  source_ip: z.string().max(64),
  user_agent: bounded(1024),
  justification: bounded(2048),
  success: z.boolean(),
  details: jsonText(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
    'must be a JSON object',
  ).refine((s) => Buffer.byteLength(s) <= MAX_DETAILS_BYTES, 'at most 64 KiB'),
  ingested_at: epochMs,
  patient_id: bounded(256),
  purpose_of_use: z.string().refine((s) => s === '' || isPurposeOfUse(s), 'must be a PurposeOfUse code'),
  recipient: bounded(1024),
  disclosure: z.boolean(),
  accounting_exclusion: z.string().refine((s) => s === '' || isAccountingExclusion(s), 'unknown exclusion'),
  leaf_salts: z
    .string()
    .refine(isStoredLeafSalts, `must be "" or the base64 of ${LEAF_SEED_BYTES} or ${LEAF_SALTS_BYTES} bytes`),
});
