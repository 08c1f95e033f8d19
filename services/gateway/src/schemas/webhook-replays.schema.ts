import { z } from 'zod';
import { formatTimestamp } from '@audit/shared/contract';
import { type WebhookReplay } from '@audit/shared/webhooks';

const time = z.string().meta({ description: 'UTC, millisecond precision, with a `+00:00` offset.' });

/** docs/webhooks.md "Replays": a replay and how far it got. */
export const webhookReplaySchema = z
  .object({
    id: z.string().meta({ description: "The replay's id (a UUID)." }),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']).meta({
      description:
        '`queued` until a dispatcher takes it up, at the earliest `WEBHOOK_REPLAY_SETTLE_MS` (default 15 s) after `until`; `failed` says why in `error`.',
    }),
    since: time.meta({ description: 'Events ingested from then on (inclusive)...' }),
    until: time.meta({ description: '...until then (exclusive).' }),
    created_at: time,
    started_at: time.nullable(),
    finished_at: time.nullable(),
    records_read: z.int().min(0).meta({ description: "Records of the tenant's partition read so far." }),
    deliveries_queued: z
      .int()
      .min(0)
      .meta({ description: 'Matching events handed on as replayed deliveries so far.' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookReplay' });

const at = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));

export const webhookReplayView = (r: WebhookReplay) => ({
  id: r.id,
  status: r.status,
  since: formatTimestamp(r.since),
  until: formatTimestamp(r.until),
  created_at: formatTimestamp(r.createdAt),
  started_at: at(r.startedAt),
  finished_at: at(r.finishedAt),
  records_read: r.recordsRead,
  deliveries_queued: r.deliveriesQueued,
  error: r.error,
});
