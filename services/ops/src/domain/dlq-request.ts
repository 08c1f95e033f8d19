import { z } from 'zod';
import { TENANT_ID_PATTERN } from '@audit/shared/contract';
import { parseOptions } from './cli-options.js';
import { DEAD_LETTER_QUEUES } from './dead-letter.js';

const endpointId = z.string().regex(/^wh_[0-9a-f]{8}$/, 'must be an endpoint id (wh_ and 8 hex digits)');
const count = (fallback: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1'))
    .default(fallback);

/** The dead-letter commands' options, as the CLI hands them over (text), checked and typed. */
export const dlqRequestSchema = z
  .object({
    queue: z.enum(DEAD_LETTER_QUEUES, { error: 'must be projector or webhooks' }),
    tenant: z.string().regex(TENANT_ID_PATTERN, 'must be a tenant id: 1..64 of [A-Za-z0-9._-]').optional(),
    endpoint: endpointId.optional(),
    to: endpointId.optional(),
    partition: z
      .string()
      .regex(/^\d{1,5}$/, 'must be a partition number')
      .transform(Number)
      .optional(),
    offset: z
      .string()
      .regex(/^\d{1,19}$/, 'must be an offset')
      .optional(),
    limit: count(Number.MAX_SAFE_INTEGER),
    all: z.boolean().default(false),
    'dry-run': z.boolean().default(false),
  })
  .refine((r) => r.to === undefined || r.endpoint !== undefined, {
    message: '--to needs --endpoint: whose deliveries go to the replacement',
    path: ['to'],
  })
  .refine((r) => r.to === undefined || r.queue === 'webhooks', {
    message: '--to is for the webhooks queue',
    path: ['to'],
  })
  .refine((r) => r.partition === undefined || r.offset !== undefined, {
    message: '--partition goes with --offset',
    path: ['partition'],
  });

export type DlqRequest = z.output<typeof dlqRequestSchema>;

export const parseDlqRequest = (values: Record<string, unknown>) => parseOptions(dlqRequestSchema, values);
