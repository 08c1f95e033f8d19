import type { IHeaders } from 'kafkajs';
import { z } from 'zod';

/** One delivery of one event to one endpoint, at one attempt. */
export interface DeliveryJob {
  endpointId: string;
  tenantId: string;
  eventId: string;
  /** The exact payload bytes: the same on every attempt. */
  body: Buffer;
  /** The attempt to make, 1-based. */
  attempt: number;
  /** Epoch ms before which the record's tier must not hand it on (the attempt, or the next hop). */
  dueAt: number;
  /** Epoch ms before which the receiver asked not to be tried again (Retry-After), or null. */
  notBefore: number | null;
  replay: boolean;
  /** Where the event was read from the audit topic. */
  origin: { topic: string; partition: number; offset: string };
  lastError: string | null;
}

const text = (value: IHeaders[string]) => (Array.isArray(value) ? value[0] : value)?.toString();

const headersSchema = z.object({
  'wh-endpoint': z.string().regex(/^wh_[0-9a-f]{8}$/),
  'wh-tenant': z.string().min(1),
  'wh-event': z.string().min(1),
  'wh-attempt': z.coerce.number().int().min(1),
  'wh-due-at': z.coerce.number().int().min(0),
  'wh-not-before': z.coerce.number().int().min(0).optional(),
  'wh-replay': z.enum(['true', 'false']),
  'wh-origin-topic': z.string(),
  'wh-origin-partition': z.coerce.number().int().min(0),
  'wh-origin-offset': z.string().regex(/^\d+$/),
  'wh-last-error': z.string().optional(),
});

/** Retry state travels in record headers; the value is the payload itself. */
export function jobHeaders(job: DeliveryJob): Record<string, string> {
  return {
    'wh-endpoint': job.endpointId,
    'wh-tenant': job.tenantId,
    'wh-event': job.eventId,
    'wh-attempt': String(job.attempt),
    'wh-due-at': String(job.dueAt),
    ...(job.notBefore === null ? {} : { 'wh-not-before': String(job.notBefore) }),
    'wh-replay': String(job.replay),
    'wh-origin-topic': job.origin.topic,
    'wh-origin-partition': String(job.origin.partition),
    'wh-origin-offset': job.origin.offset,
    ...(job.lastError === null ? {} : { 'wh-last-error': job.lastError }),
  };
}

export function jobFromRecord(headers: IHeaders | undefined, value: Buffer | null): DeliveryJob | null {
  if (!value) return null;
  const parsed = headersSchema.safeParse(
    Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, text(v)])),
  );
  if (!parsed.success) return null;
  const h = parsed.data;
  return {
    endpointId: h['wh-endpoint'],
    tenantId: h['wh-tenant'],
    eventId: h['wh-event'],
    body: value,
    attempt: h['wh-attempt'],
    dueAt: h['wh-due-at'],
    notBefore: h['wh-not-before'] ?? null,
    replay: h['wh-replay'] === 'true',
    origin: {
      topic: h['wh-origin-topic'],
      partition: h['wh-origin-partition'],
      offset: h['wh-origin-offset'],
    },
    lastError: h['wh-last-error'] ?? null,
  };
}
