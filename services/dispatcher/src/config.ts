import { z } from 'zod';
import {
  kafkaEnv,
  kafkaSettings,
  loggingEnv,
  parseEnv,
  port,
  positiveInt,
  postgresEnv,
  webhookEnv,
  webhookSettings,
  WEBHOOK_RETRY_TIERS,
  type Env,
} from '@audit/shared';
import { parseDurations } from './domain/durations.js';

const schema = z
  .object({
    ...kafkaEnv,
    ...postgresEnv,
    ...loggingEnv,
    ...webhookEnv,
    DISPATCHER_HOST: z.string().min(1).default('127.0.0.1'),
    DISPATCHER_PORT: port(8083),
    DISPATCHER_GROUP_ID: z.string().min(1).default('audit-dispatcher'),
    DISPATCHER_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).default(10_000),
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
      }),
    WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(0.5).default(0.2),
    // The longest a receiver's Retry-After may hold a retry back: a receiver cannot park a delivery for ever.
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
      }),
    // Delivery attempts older than this are deleted (the sweeper keeps those of deliveries that may still retry).
    WEBHOOK_ATTEMPT_RETENTION_DAYS: positiveInt(30),
    // Deliveries a self-serve replay hands on a second (docs/webhooks.md "Replays"), per replay.
    WEBHOOK_REPLAY_RATE: positiveInt(100),
    // A replay begins this long after its window's end, when events acknowledged before it are on the audit
    // topic: ingest's publish deadline (INGEST_PUBLISH_TIMEOUT_MS, 10 s) and 5 s for the hosts' clocks.
    WEBHOOK_REPLAY_SETTLE_MS: z.coerce.number().int().min(0).default(15_000),
    WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
    WEBHOOK_AUTO_DISABLE_AFTER: positiveInt(10),
    // Push invalidation (LISTEN) makes changes apply at once; the periodic reload only repairs a missed one.
    WEBHOOK_ENDPOINT_RELOAD_MS: positiveInt(30_000),
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: positiveInt(16),
    WEBHOOK_MAX_IN_FLIGHT: positiveInt(20_000),
    // Beyond this many jobs waiting for an endpoint none of whose requests ended for a second, new ones wait in
    // the first retry tier instead of in memory.
    WEBHOOK_MAX_WAITING_PER_ENDPOINT: positiveInt(256),
  })
  .transform((e) => ({
    kafka: kafkaSettings(e),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    host: e.DISPATCHER_HOST,
    port: e.DISPATCHER_PORT,
    groupId: e.DISPATCHER_GROUP_ID,
    sessionTimeoutMs: e.DISPATCHER_SESSION_TIMEOUT_MS,
    webhooks: webhookSettings(e),
    retry: { delaysMs: e.WEBHOOK_RETRY_DELAYS, jitter: e.WEBHOOK_RETRY_JITTER },
    retryAfterMaxMs: e.WEBHOOK_RETRY_AFTER_MAX,
    attemptRetentionDays: e.WEBHOOK_ATTEMPT_RETENTION_DAYS,
    replayPerSecond: e.WEBHOOK_REPLAY_RATE,
    replaySettleMs: e.WEBHOOK_REPLAY_SETTLE_MS,
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    autoDisableAfter: e.WEBHOOK_AUTO_DISABLE_AFTER,
    endpointReloadMs: e.WEBHOOK_ENDPOINT_RELOAD_MS,
    concurrencyPerEndpoint: e.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    maxInFlight: e.WEBHOOK_MAX_IN_FLIGHT,
    maxWaitingPerEndpoint: e.WEBHOOK_MAX_WAITING_PER_ENDPOINT,
  }));

export type DispatcherConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<DispatcherConfig> {
  return parseEnv('dispatcher', schema, env);
}
