import { z } from 'zod';
import {
  FILTER_ENTRY_PATTERN,
  MAX_FILTER_ENTRIES,
  MAX_URL_LENGTH,
  NO_SPACE_OR_CONTROL_PATTERN,
  text,
  zodFieldErrors,
  type FieldError,
} from '@audit/shared';

export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{8}$/;
export const MAX_ENDPOINTS_PER_TENANT = 100;

/** docs/contract.md "Webhooks": url required; filter and description optional; unknown fields refused. */
export const createWebhookBodySchema = z
  .strictObject({
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
      .max(MAX_FILTER_ENTRIES)
      .default([])
      .meta({ description: 'Action prefixes; empty (the default) means every action.', example: ['phi.'] }),
    description: text(500)
      .refine((d) => !d.includes(String.fromCharCode(0)), 'must not contain NUL characters')
      .default('')
      .meta({ description: 'A label.' }),
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
