import { z } from 'zod';
import { ACTION_PATTERN, STORED_UUID_PATTERN } from '@audit/shared/contract';

const jsonText = (description: string) =>
  z.string().meta({ description: `${description} A string containing JSON, not an object.` });

/**
 * Salts as the API writes them: 128 bytes are 42 groups of four characters, then two bytes as three characters (the
 * last with its two low bits zero) and one `=`, the one text of those bytes a verifier takes. The `/` is escaped, as
 * a class must write it for every reader of the document's patterns (openapi.document.unit.test.ts).
 */
const LEAF_SALTS_TEXT = new RegExp(String.raw`^[A-Za-z0-9+\/]{170}[AEIMQUYcgkosw048]=$`);

/** A time as the API renders every time (formatTimestamp): UTC, milliseconds, `+00:00`. */
export const timestampSchema = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\+00:00$/);

/** Spec "Audit event"; every event the list, lookup and export return is parsed by this before it leaves. */
export const auditEventSchema = z
  .object({
    event_id: z
      .string()
      .regex(STORED_UUID_PATTERN)
      // A pattern, not `format: uuid`: ingest keeps a producer's id as given (any version or variant), and strict
      // generated clients check that format against RFC 9562's version and variant bits.
      .meta({
        description:
          'Stable and unique. A UUID in its text form (8-4-4-4-12 lowercase hex), of any version or variant.',
        example: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90',
      }),
    timestamp: timestampSchema.meta({
      description: 'UTC, millisecond precision, with a `+00:00` offset.',
      example: '2026-11-21T09:30:00.123+00:00',
    }),
    action: z.string().regex(ACTION_PATTERN).meta({ example: 'phi.read' }),
    user_id: z.string(),
    user_role: z.string(),
    resource_type: z.string().meta({ example: 'claim' }),
    resource_id: z.string(),
    fields_accessed: jsonText('Sub-fields read on PHI access; empty for non-PHI events.'),
    phi_involved: z.boolean(),
    tenant_id: z.string(),
    source_ip: z.string(),
    user_agent: z.string(),
    justification: z.string(),
    success: z.boolean(),
    details: jsonText('Free-form context that varies per action.'),
    patient_id: z.string().meta({ description: 'Whose PHI the event concerns; `""` when none was named.' }),
    purpose_of_use: z.string().meta({
      description: 'An HL7 v3 PurposeOfUse code (`TREAT`, `HPAYMT`, `HOPERAT`, ...), or `""`.',
      example: 'TREAT',
    }),
    recipient: z.string().meta({ description: 'Whom PHI was disclosed to; `""` unless `disclosure`.' }),
    disclosure: z.boolean().meta({ description: 'PHI left the covered entity (a disclosure, not a use).' }),
    accounting_exclusion: z.string().meta({
      description:
        'The HIPAA 164.528(a)(1) exclusion the producer named for a disclosure, or `""` (docs/ingest.md "Disclosures").',
    }),
    leaf_salts: z.string().regex(LEAF_SALTS_TEXT).optional().meta({
      description:
        'The base64 of 16 bytes of salt for each of the eight fields the event\'s leaf commits to through salted hashes (docs/integrity.md "Version 3"); a verifier needs them. Every event ingested since leaf version 3 has them; an event without them has a leaf of version 1 or 2.',
    }),
  })
  .meta({ id: 'AuditEvent', description: 'Clients must tolerate fields added later.' });

export type AuditEventView = z.infer<typeof auditEventSchema>;

export const pageDescriptorSchema = z
  .object({
    limit: z.int().min(1).max(1000).meta({ description: 'The page size applied.' }),
    returned: z.int().min(0),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Opaque; pass verbatim as `cursor`. `null` on the last page.' }),
    has_more: z.boolean().meta({ description: '`false` means stop paging. Exact, never a guess.' }),
  })
  .meta({ id: 'PageDescriptor' });

export const listResponseSchema = z
  .object({ events: z.array(auditEventSchema), page: pageDescriptorSchema })
  .meta({ id: 'EventList' });

export const exportEnvelopeSchema = z
  .object({
    events: z.array(auditEventSchema),
    count: z.int().min(0).max(10_000),
    truncated: z.boolean().meta({ description: 'As `X-Service-Truncated`: the 10,000-row cap was reached.' }),
  })
  .meta({ id: 'ExportEnvelope' });
