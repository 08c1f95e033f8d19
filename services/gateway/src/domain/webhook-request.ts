import { z } from 'zod';
import {
  FILTER_ENTRY_PATTERN,
  NO_SPACE_OR_CONTROL_PATTERN,
  patientIdText,
  text,
} from '@audit/shared/contract';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { MAX_FILTER_ENTRIES, MAX_PATIENT_FILTER_ENTRIES, MAX_URL_LENGTH } from '@audit/shared/webhooks';

export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{8}$/;
export const MAX_ENDPOINTS_PER_TENANT = 100;

/** Bounds of an endpoint's delivery rate limit, in attempts a second (docs/webhooks.md "Rate limit"). */
export const MAX_RATE_LIMIT_PER_SECOND = 10_000;

// Each field's rule, once: creation and update validate a field the same way, and differ only in what is required
// and what an absent field means.
const webhookFields = {
  url: text(MAX_URL_LENGTH)
    .min(1)
    // The URL parser drops tabs and line breaks silently: what is stored must be what is called.
    .regex(NO_SPACE_OR_CONTROL_PATTERN, 'must not contain spaces or control characters')
    .meta({
      description: 'https only (plain http only where the operator allows it), no user-info.',
      example: 'https://siem.example.com/hooks/audit',
    }),
  event_filter: z
    .array(z.string().regex(FILTER_ENTRY_PATTERN, 'entries must be 1 to 100 characters of a-z 0-9 . _ -'), {
      message: 'must be an array of action prefixes',
    })
    .max(MAX_FILTER_ENTRIES),
  patient_filter: z
    .array(patientIdText().min(1, 'must not be empty'), { message: 'must be an array of patient ids' })
    .max(MAX_PATIENT_FILTER_ENTRIES),
  description: text(500).refine(
    (d) => !d.includes(String.fromCharCode(0)),
    'must not contain NUL characters',
  ),
  rate_limit_per_second: z
    .int()
    .min(1)
    .max(MAX_RATE_LIMIT_PER_SECOND)
    .nullable()
    .meta({
      description:
        'At most this many delivery attempts a second to the endpoint, retries included, across every dispatcher ' +
        'process: 1 to 10000, or `null` for no limit.',
      example: 50,
    }),
};

const PATIENT_FILTER_DESCRIPTION =
  'Patient ids, as events name them in `patient_id` (exact): only events naming one of them are delivered, if the action filter matches too.';

/** docs/contract.md "Webhooks": url required; filters, description and rate optional; unknown fields refused. */
export const createWebhookBodySchema = z
  .strictObject({
    url: webhookFields.url,
    event_filter: webhookFields.event_filter
      .default([])
      .meta({ description: 'Action prefixes; empty (the default) means every action.', example: ['phi.'] }),
    patient_filter: webhookFields.patient_filter.default([]).meta({
      description: PATIENT_FILTER_DESCRIPTION + ' Empty (the default) means every event.',
      example: ['p-1042'],
    }),
    description: webhookFields.description.default('').meta({ description: 'A label.' }),
    rate_limit_per_second: webhookFields.rate_limit_per_second.default(null),
  })
  .meta({ id: 'CreateWebhook' });

export type CreateWebhook = z.output<typeof createWebhookBodySchema>;

export function parseCreateWebhook(
  body: unknown,
): { ok: true; value: CreateWebhook } | { ok: false; errors: FieldError[] } {
  const parsed = createWebhookBodySchema.safeParse(body === undefined ? {} : body);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, errors: zodFieldErrors(parsed.error) };
}

/** docs/webhooks.md "Updating an endpoint": the fields given change, the others stay; at least one. */
export const updateWebhookBodySchema = z
  .strictObject({
    url: webhookFields.url.optional(),
    event_filter: webhookFields.event_filter
      .optional()
      .meta({ description: 'Action prefixes; empty means every action.', example: ['phi.', 'admin.'] }),
    patient_filter: webhookFields.patient_filter.optional().meta({
      description: PATIENT_FILTER_DESCRIPTION + ' Empty means every event.',
      example: ['p-1042', 'p-2210'],
    }),
    description: webhookFields.description.optional().meta({ description: 'A label.', example: 'SIEM' }),
    rate_limit_per_second: webhookFields.rate_limit_per_second.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'must name at least one field to change')
  // What the refinement checks, as JSON Schema says it: clients and fuzzers read this, not the refinement.
  .meta({ id: 'UpdateWebhook', minProperties: 1 });

export type UpdateWebhook = z.output<typeof updateWebhookBodySchema>;

export function parseUpdateWebhook(
  body: unknown,
): { ok: true; value: UpdateWebhook } | { ok: false; errors: FieldError[] } {
  const parsed = updateWebhookBodySchema.safeParse(body === undefined ? {} : body);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, errors: zodFieldErrors(parsed.error) };
}

/** Longest and default overlap of a secret rotation (docs/webhooks.md "Secrets"). */
export const MAX_ROTATION_OVERLAP_S = 7 * 86_400;
export const DEFAULT_ROTATION_OVERLAP_S = 86_400;

export const rotateSecretBodySchema = z
  .strictObject({
    overlap_seconds: z
      .int()
      .min(0)
      .max(MAX_ROTATION_OVERLAP_S)
      .default(DEFAULT_ROTATION_OVERLAP_S)
      .meta({
        description:
          'How long the replaced secret keeps signing deliveries beside the new one: 0 to 604800 (7 days); ' +
          'default 86400 (24 h).',
        example: 3600,
      }),
  })
  .meta({ id: 'RotateWebhookSecret' });

export function parseRotateSecret(
  body: unknown,
): { ok: true; overlapSeconds: number } | { ok: false; errors: FieldError[] } {
  const parsed = rotateSecretBodySchema.safeParse(body === undefined ? {} : body);
  return parsed.success
    ? { ok: true, overlapSeconds: parsed.data.overlap_seconds }
    : { ok: false, errors: zodFieldErrors(parsed.error) };
}

/** Disable takes no body; an empty object is tolerated, anything else is a field we do not know. */
export function checkEmptyBody(body: unknown): FieldError[] {
  if (body === undefined) return [];
  const parsed = z.strictObject({}).safeParse(body);
  return parsed.success ? [] : zodFieldErrors(parsed.error);
}
