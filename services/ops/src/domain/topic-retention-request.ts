import { z } from 'zod';
import { MAX_TOPIC_RETENTION_DAYS, MIN_TOPIC_RETENTION_DAYS } from '@audit/shared/audit-topic';
import { parseOptions, type Parsed } from './cli-options.js';

/** `topics retention` options: `--days N`, `--forever`, or neither to show the retentions. */
const topicRetentionSchema = z.object({
  days: z
    .string()
    .regex(/^[0-9]{1,9}$/, 'must be a whole number of days')
    .transform(Number)
    .pipe(z.int().min(MIN_TOPIC_RETENTION_DAYS).max(MAX_TOPIC_RETENTION_DAYS))
    .optional(),
});

/** What to set: a number of days, null for ever, undefined to change nothing. */
export function parseTopicRetention(
  values: Record<string, unknown>,
): Parsed<{ days: number | null | undefined }> {
  const forever = values.forever === true;
  if (forever && values.days !== undefined)
    return { ok: false, errors: ['--forever: cannot be given with --days'] };
  const parsed = parseOptions(topicRetentionSchema, { days: values.days });
  if (!parsed.ok) return parsed;
  return { ok: true, request: { days: forever ? null : parsed.request.days } };
}
