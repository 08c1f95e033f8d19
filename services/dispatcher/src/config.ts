import { z } from 'zod';
import { WEBHOOK_RETRY_TIERS } from '@audit/shared/contract';
import { positiveInt, serviceConfig } from '@audit/shared/platform';
import { webhookEnv, webhookSettings } from '@audit/shared/webhooks';
import { parseDurations } from './domain/durations.js';

/** The environment variables the dispatcher reads, each described for docs/configuration.md. */
export const { envSchema, loadConfig } = serviceConfig(
  'dispatcher',
  ['kafka', 'postgres'],
  {
    ...webhookEnv,
    DISPATCHER_GROUP_ID: z.string().min(1).default('audit-dispatcher').meta({
      description:
        "consumer group of the audit topic (`…-retries` for the retry tiers); a new group starts at the topic's end",
    }),
    DISPATCHER_SESSION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(6000)
      .default(10_000)
      .meta({ description: 'consumer group session timeout (at least 6000)' }),
    // The spec's schedule, timeout and threshold, configurable so tests run in seconds
    // (docs/contract.md "Delivery").
    WEBHOOK_RETRY_DELAYS: z
      .string()
      .default('1m,5m,30m,2h,12h')
      .transform((text, ctx) => {
        const delays = parseDurations(text);
        if (!delays || delays.length > WEBHOOK_RETRY_TIERS) {
          ctx.addIssue({
            code: 'custom',
            message: `must be 1 to ${WEBHOOK_RETRY_TIERS} comma-separated durations such as 1m,5m,30m,2h,12h`,
          });
          return z.NEVER;
        }
        return delays;
      })
      .meta({
        description: `delays of retries 1..${WEBHOOK_RETRY_TIERS} after a failed attempt (\`ms\`, \`s\`, \`m\`, \`h\`); at most ${WEBHOOK_RETRY_TIERS}`,
      }),
    WEBHOOK_RETRY_JITTER: z.coerce
      .number()
      .min(0)
      .max(0.5)
      .default(0.2)
      .meta({ description: 'uniform jitter as a fraction of each delay (0 to 0.5)' }),
    // A receiver cannot park a delivery for ever.
    WEBHOOK_RETRY_AFTER_MAX: z
      .string()
      .default('24h')
      .transform((text, ctx) => {
        const [maxMs, ...more] = parseDurations(text) ?? [];
        if (maxMs === undefined || more.length > 0) {
          ctx.addIssue({ code: 'custom', message: 'must be one duration such as 24h, 90m or 3600s' });
          return z.NEVER;
        }
        return maxMs;
      })
      .meta({
        description: "the longest a receiver's `Retry-After` may hold a retry back (`ms`, `s`, `m`, `h`)",
      }),
    WEBHOOK_ATTEMPT_RETENTION_DAYS: positiveInt(30).meta({
      description:
        'delivery attempts older than this (at least 1) are deleted, hourly; never one a retry may still need ' +
        '(docs/webhooks.md "Delivery attempts")',
    }),
    WEBHOOK_REPLAY_RATE: positiveInt(100).meta({
      description:
        'deliveries a self-serve replay hands on a second, per replay (docs/webhooks.md "Replays")',
    }),
    // By then, events acknowledged before the window's end are on the audit topic: ingest's publish deadline
    // (INGEST_PUBLISH_TIMEOUT_MS, 10 s) and 5 s for the hosts' clocks.
    WEBHOOK_REPLAY_SETTLE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(15_000)
      .meta({ description: 'how long after its window\'s end a replay begins (docs/webhooks.md "Replays")' }),
    WEBHOOK_REPLAY_SLICE_MS: positiveInt(10_000).meta({
      description:
        'how long a dispatcher runs one replay before it takes the next in turn, tenants served in turn ' +
        '(docs/webhooks.md "Fair share")',
    }),
    WEBHOOK_TIMEOUT_MS: positiveInt(10_000).meta({ description: 'one attempt, connect to last byte read' }),
    WEBHOOK_AUTO_DISABLE_AFTER: positiveInt(10).meta({
      description: 'consecutive terminal failures that make an endpoint inactive',
    }),
    // Push invalidation (LISTEN) makes changes apply at once; the periodic reload only repairs a missed one.
    WEBHOOK_ENDPOINT_RELOAD_MS: positiveInt(30_000).meta({
      description: 'full reload of active endpoints (changes also arrive at once through LISTEN/NOTIFY)',
    }),
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: positiveInt(16).meta({
      description: 'attempts in flight to one endpoint at most',
    }),
    WEBHOOK_MAX_IN_FLIGHT: positiveInt(20_000).meta({
      description: 'deliveries queued or running in one process before reading pauses',
    }),
    // A slow endpoint's jobs wait on Kafka, not in memory.
    WEBHOOK_MAX_WAITING_PER_ENDPOINT: positiveInt(256).meta({
      description:
        'jobs that may wait for an endpoint none of whose requests ended for a second; beyond, they wait in the ' +
        'first retry tier',
    }),
  },
  (e) => ({
    groupId: e.DISPATCHER_GROUP_ID,
    sessionTimeoutMs: e.DISPATCHER_SESSION_TIMEOUT_MS,
    webhooks: webhookSettings(e),
    retry: { delaysMs: e.WEBHOOK_RETRY_DELAYS, jitter: e.WEBHOOK_RETRY_JITTER },
    retryAfterMaxMs: e.WEBHOOK_RETRY_AFTER_MAX,
    attemptRetentionDays: e.WEBHOOK_ATTEMPT_RETENTION_DAYS,
    replayPerSecond: e.WEBHOOK_REPLAY_RATE,
    replaySettleMs: e.WEBHOOK_REPLAY_SETTLE_MS,
    replaySliceMs: e.WEBHOOK_REPLAY_SLICE_MS,
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    autoDisableAfter: e.WEBHOOK_AUTO_DISABLE_AFTER,
    endpointReloadMs: e.WEBHOOK_ENDPOINT_RELOAD_MS,
    concurrencyPerEndpoint: e.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    maxInFlight: e.WEBHOOK_MAX_IN_FLIGHT,
    maxWaitingPerEndpoint: e.WEBHOOK_MAX_WAITING_PER_ENDPOINT,
  }),
);

export type DispatcherConfig = ReturnType<typeof loadConfig>;
