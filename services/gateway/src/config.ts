import { z } from 'zod';
import {
  API_KEY_ENVS,
  cidrList,
  clickhouseEnv,
  clickhouseSettings,
  exportStorageEnv,
  exportStorageSettings,
  kafkaEnv,
  kafkaSettings,
  loggingEnv,
  parseEnv,
  port,
  positiveInt,
  postgresEnv,
  secret,
  webhookEnv,
  webhookSettings,
  type Env,
} from '@audit/shared';

const schema = z
  .object({
    ...clickhouseEnv,
    ...kafkaEnv,
    ...postgresEnv,
    ...loggingEnv,
    ...webhookEnv,
    ...exportStorageEnv,
    GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
    GATEWAY_PORT: port(8080),
    // Metrics are unauthenticated and describe the whole deployment: never on the public listener.
    GATEWAY_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    GATEWAY_METRICS_PORT: port(9080),
    API_KEY_PEPPER: secret(32),
    API_KEY_ENV: z.enum(API_KEY_ENVS).default('live'),
    CURSOR_SECRET: secret(32),
    TRUSTED_PROXIES: cidrList,
    AUDIT_PUBLISH_TIMEOUT_MS: positiveInt(5000),
    // A test send (docs/webhooks.md "Test deliveries"), connect to last byte: as a delivery's WEBHOOK_TIMEOUT_MS.
    WEBHOOK_TEST_TIMEOUT_MS: positiveInt(10_000),
    // The longest window of events an endpoint's owner may replay at once (docs/webhooks.md "Replays").
    WEBHOOK_REPLAY_MAX_DAYS: positiveInt(31),
    // Each export holds up to two reads of rows: their number bounds the memory exports take.
    EXPORT_CONCURRENCY: positiveInt(4),
    // Export jobs (docs/exports.md): queued or running per tenant, and the longest window one job may cover.
    EXPORT_JOBS_IN_FLIGHT: positiveInt(3),
    EXPORT_JOB_MAX_WINDOW_DAYS: positiveInt(366),
    RATE_LIMIT_READ_PER_MIN: positiveInt(1000),
    RATE_LIMIT_WRITE_PER_MIN: positiveInt(200),
    // Failed authentications per client address before 429 (docs/api-keys.md "Failed authentication").
    AUTH_FAILURE_BURST: positiveInt(50),
    AUTH_FAILURES_PER_MIN: positiveInt(50),
    AUTH_THROTTLE_HOLD_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
    // Revocation must reach every gateway within 5 s (docs/contract.md "API keys"): a cached lookup lives at
    // most this long, leaving time for the lookup that replaces it (queries time out after 2 s).
    KEY_CACHE_TTL_MS: positiveInt(2000).refine(
      (ms) => ms <= 3000,
      'at most 3000: revocation must apply within 5 s',
    ),
  })
  .transform((e, ctx) => ({
    clickhouse: clickhouseSettings(e),
    kafka: kafkaSettings(e),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    host: e.GATEWAY_HOST,
    port: e.GATEWAY_PORT,
    metrics: { host: e.GATEWAY_METRICS_HOST, port: e.GATEWAY_METRICS_PORT },
    apiKeyPepper: e.API_KEY_PEPPER,
    apiKeyEnv: e.API_KEY_ENV,
    cursorSecret: e.CURSOR_SECRET,
    trustedProxies: e.TRUSTED_PROXIES,
    auditTimeoutMs: e.AUDIT_PUBLISH_TIMEOUT_MS,
    exportConcurrency: e.EXPORT_CONCURRENCY,
    exportJobLimits: { inFlight: e.EXPORT_JOBS_IN_FLIGHT, maxWindowDays: e.EXPORT_JOB_MAX_WINDOW_DAYS },
    exportStorage: exportStorageSettings(e, ctx),
    limits: { readPerMinute: e.RATE_LIMIT_READ_PER_MIN, writePerMinute: e.RATE_LIMIT_WRITE_PER_MIN },
    authFailures: {
      burst: e.AUTH_FAILURE_BURST,
      refillPerMinute: e.AUTH_FAILURES_PER_MIN,
      holdMs: e.AUTH_THROTTLE_HOLD_MS,
    },
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    webhooks: { ...webhookSettings(e), testTimeoutMs: e.WEBHOOK_TEST_TIMEOUT_MS },
    replayMaxDays: e.WEBHOOK_REPLAY_MAX_DAYS,
  }));

export type GatewayConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<GatewayConfig> {
  return parseEnv('gateway', schema, env);
}
