import { z } from 'zod';
import { parseRfc3339, RFC3339_RULE } from '../time.js';
import { ACTION_PATTERN, MAX_DETAILS_BYTES, TENANT_ID_PATTERN, UUID_PATTERN } from './audit-event.js';
import { ACCOUNTING_EXCLUSIONS, isAccountingExclusion } from './disclosure.js';
import { canonicalIp } from './ip-address.js';
import { jsonDepth, MAX_JSON_DEPTH } from './json-limits.js';
import { patientIdText } from './patient-id.js';
import { isPurposeOfUse } from './purpose-of-use.js';
import { text } from './text.js';

const stringArray = z.array(text(256).min(1, 'must not be empty')).max(1000, 'at most 1000 entries');

/** One audit event as producers send it to ingest (docs/ingest.md, "Event fields"). */
export const ingestEventSchema = z
  .strictObject({
    event_id: z
      .string()
      .regex(UUID_PATTERN, 'must be a UUID')
      .transform((s) => s.toLowerCase())
      .optional(),
    // Parsed here once: the output is epoch milliseconds.
    timestamp: z
      .string()
      .max(64)
      .transform(
        (s, ctx) =>
          parseRfc3339(s) ??
          (ctx.addIssue({
            code: 'custom',
            message: RFC3339_RULE,
          }),
          z.NEVER),
      )
      .optional(),
    tenant_id: z.string().regex(TENANT_ID_PATTERN, 'must be 1..64 of [A-Za-z0-9._-]'),
    action: z
      .string()
      .max(100, 'at most 100 characters')
      .regex(ACTION_PATTERN, 'must be a dotted lowercase slug'),
    user_id: text(256).min(1, 'must not be empty'),
    user_role: text(256).default(''),
    resource_type: text(256).min(1, 'must not be empty'),
    resource_id: text(256).default(''),
    fields_accessed: stringArray.default([]),
    phi_involved: z.boolean(),
    // Stored in its one canonical text, so that a filter finds every spelling of the address.
    source_ip: z
      .string()
      .max(64)
      .transform(
        (s, ctx) =>
          (s === '' ? '' : canonicalIp(s)) ??
          (ctx.addIssue({ code: 'custom', message: 'must be an IPv4 or IPv6 address, or empty' }), z.NEVER),
      )
      .default(''),
    user_agent: text(1024).default(''),
    justification: text(2048).default(''),
    success: z.boolean(),
    // Serialized here once: the output is the JSON text that is stored.
    details: z
      .record(z.string(), z.unknown())
      .refine((d) => jsonDepth(d) <= MAX_JSON_DEPTH, {
        message: `nested at most ${MAX_JSON_DEPTH} levels deep`,
        // Serializing a deeper value could exhaust the stack: the size check must not run.
        abort: true,
      })
      .transform((d) => JSON.stringify(d))
      .refine((json) => Buffer.byteLength(json) <= MAX_DETAILS_BYTES, 'at most 64 KiB as JSON')
      .default('{}'),
    patient_id: patientIdText().default(''),
    purpose_of_use: z
      .string()
      .max(64)
      .refine((s) => s === '' || isPurposeOfUse(s), 'must be an HL7 v3 PurposeOfUse code (docs/ingest.md)')
      .default(''),
    recipient: text(1024).default(''),
    disclosure: z.boolean().default(false),
    accounting_exclusion: z
      .string()
      .max(64)
      .refine(
        (s) => s === '' || isAccountingExclusion(s),
        `must be one of ${ACCOUNTING_EXCLUSIONS.join(', ')}, or empty`,
      )
      .default(''),
  })
  .superRefine((event, ctx) => {
    const refuse = (field: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [field], message });
    if (!event.phi_involved && event.fields_accessed.length > 0) {
      refuse('fields_accessed', 'must be empty when phi_involved is false');
    }
    // A disclosure is of PHI; its recipient and its exclusion describe a disclosure and nothing else.
    if (event.disclosure && !event.phi_involved)
      refuse('disclosure', 'must be false when phi_involved is false');
    // A disclosure is accounted for to the patient whose PHI it was (docs/reports.md): it names them.
    if (event.disclosure && event.patient_id === '')
      refuse('patient_id', 'must name the patient of a disclosure');
    if (!event.disclosure && event.recipient !== '')
      refuse('recipient', 'must be empty when disclosure is false');
    if (!event.disclosure && event.accounting_exclusion !== '') {
      refuse('accounting_exclusion', 'must be empty when disclosure is false');
    }
  });

export type IngestEventInput = z.input<typeof ingestEventSchema>;
export type IngestEvent = z.output<typeof ingestEventSchema>;
