import { z } from 'zod';
import { apiKeyEnv } from '@audit/shared/api-keys';
import { exportStorageEnv, exportStorageSettings } from '@audit/shared/export-jobs';
import { port, positiveInt, secret, serviceConfig } from '@audit/shared/platform';
import { cidrList, webhookEnv, webhookSettings } from '@audit/shared/webhooks';

/** The environment variables the gateway reads, each described for docs/configuration.md. */
export const { envSchema, loadConfig } = serviceConfig(
  'gateway',
  ['clickhouse', 'kafka', 'postgres'],
  {
    ...webhookEnv,
    ...exportStorageEnv,
    // Metrics are unauthenticated and describe the whole deployment: never on the public listener.
    GATEWAY_METRICS_HOST: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .meta({
        description:
          "host of the listener of the gateway's `GET /metrics`, apart from the public API: it is unauthenticated, " +
          'keep it off public networks',
      }),
    GATEWAY_METRICS_PORT: port(9080).meta({
      description: "port of the listener of the gateway's `GET /metrics`",
    }),
    ...apiKeyEnv,
    CURSOR_SECRET: secret(32).meta({
      description: 'HMAC key of list cursors; ≥ 32 printable characters, the same on every gateway',
      defaultText: 'required (`npm start` generates one)',
    }),
    TRUSTED_PROXIES: cidrList.meta({
      description: "CIDRs of proxies whose `X-Forwarded-For` is believed; anyone else's is ignored",
    }),
    AUDIT_PUBLISH_TIMEOUT_MS: positiveInt(5000).meta({
      description:
        'wait for Kafka to take the audit event of a change or an export (`audit.export`, `admin.*`) before answering 503',
    }),
    // As a delivery's WEBHOOK_TIMEOUT_MS.
    WEBHOOK_TEST_TIMEOUT_MS: positiveInt(10_000).meta({
      description:
        'one test send (`POST /audit/webhooks/{id}/test`), connect to last byte read ' +
        '(docs/webhooks.md "Test deliveries")',
    }),
    WEBHOOK_REPLAY_MAX_DAYS: positiveInt(31).meta({
      description: 'the longest window an endpoint\'s owner may replay at once (docs/webhooks.md "Replays")',
    }),
    WEBHOOK_REPLAYS_PER_TENANT: positiveInt(4).meta({
      description:
        'replays a tenant may have queued or running, over all its endpoints; one more gets 429 ' +
        '`concurrent_replays` (docs/webhooks.md "Fair share")',
    }),
    // Each export holds up to two reads of rows: their number bounds the memory exports take.
    EXPORT_CONCURRENCY: positiveInt(4).meta({
      description: 'exports one gateway process runs at once; one more gets 429 with `Retry-After`',
    }),
    EXPORT_DOWNLOADS: positiveInt(64).meta({
      description:
        'downloads of export files one gateway process serves at once (and the sockets of its S3 pool for them); ' +
        'one more gets 429 `concurrent_downloads` (docs/exports.md "Downloads")',
    }),
    EXPORT_DOWNLOADS_PER_TENANT: positiveInt(16).meta({
      description: "of them, a tenant's at once",
    }),
    EXPORT_DOWNLOADS_PER_KEY: positiveInt(4).meta({
      description: "of them, an API key's at once",
    }),
    EXPORT_DOWNLOAD_MIN_BYTES_PER_S: positiveInt(16_384).meta({
      description:
        'the least a download must send a second, on average over each window; a slower one is ended',
    }),
    EXPORT_DOWNLOAD_RATE_WINDOW_MS: positiveInt(30_000).meta({
      description: "the window over which a download's rate is measured",
    }),
    EXPORT_JOBS_IN_FLIGHT: positiveInt(3).meta({
      description:
        'export jobs a tenant may have queued or running; one more gets 429 `concurrent_export_jobs` (docs/exports.md)',
    }),
    EXPORT_JOB_MAX_WINDOW_DAYS: positiveInt(366).meta({
      description: 'the longest window (`until` − `since`) one export job may cover',
    }),
    WINDOW_PROOF_MAX_HASHES: positiveInt(50_000).meta({
      description:
        'stored hashes one page of a window proof may read; a page of scattered leaves ends early ' +
        '(docs/integrity.md "Window proofs")',
    }),
    INTEGRITY_STATEMENT_TIMEOUT_MS: positiveInt(10_000).meta({
      description:
        "Postgres's `statement_timeout` on the pool of the integrity API (proofs, checkpoints), apart from the " +
        'pool authentication and rate limits use',
    }),
    RATE_LIMIT_READ_PER_MIN: positiveInt(1000).meta({
      description: 'per-key token bucket of reads, shared by every gateway process',
    }),
    RATE_LIMIT_WRITE_PER_MIN: positiveInt(200).meta({
      description: 'per-key token bucket of writes, shared by every gateway process',
    }),
    AUTH_FAILURE_BURST: positiveInt(50).meta({
      description:
        'failed authentications a client address may make at once; past them 429 ' +
        '(docs/api-keys.md "Failed authentication")',
    }),
    AUTH_FAILURES_PER_MIN: positiveInt(50).meta({
      description:
        "the refill per minute of a client address's failed authentications (`AUTH_FAILURE_BURST`)",
    }),
    AUTH_THROTTLE_HOLD_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(1000)
      .meta({ description: "how long a throttled address's request waits for its 429 (0 to 10000)" }),
    // Revocation must reach every gateway within 5 s (docs/contract.md "API keys"): a cached lookup lives at
    // most this long, leaving time for the lookup that replaces it (queries time out after 2 s).
    KEY_CACHE_TTL_MS: positiveInt(2000)
      .refine((ms) => ms <= 3000, 'at most 3000: revocation must apply within 5 s')
      .meta({
        description:
          'how long a key lookup is reused (≤ 3000, so a revoked key is refused everywhere within 5 s)',
      }),
    VIEWER_ORIGIN: z
      .url({ protocol: /^https?$/, message: 'must be an http(s) origin such as https://audit.example.com' })
      .refine((text) => new URL(text).origin === text, 'must be an origin: scheme, host and port, no path')
      .optional()
      .meta({
        description:
          "the viewer's public origin, which the URLs of viewer tokens name (docs/viewer.md); by default the one " +
          'each request reached the gateway at',
      }),
  },
  (e, ctx) => ({
    metrics: { host: e.GATEWAY_METRICS_HOST, port: e.GATEWAY_METRICS_PORT },
    apiKeyPepper: e.API_KEY_PEPPER,
    apiKeyEnv: e.API_KEY_ENV,
    cursorSecret: e.CURSOR_SECRET,
    trustedProxies: e.TRUSTED_PROXIES,
    auditTimeoutMs: e.AUDIT_PUBLISH_TIMEOUT_MS,
    exportConcurrency: e.EXPORT_CONCURRENCY,
    exportJobLimits: { inFlight: e.EXPORT_JOBS_IN_FLIGHT, maxWindowDays: e.EXPORT_JOB_MAX_WINDOW_DAYS },
    exportStorage: exportStorageSettings(e, ctx),
    downloads: {
      perKey: e.EXPORT_DOWNLOADS_PER_KEY,
      perTenant: e.EXPORT_DOWNLOADS_PER_TENANT,
      perProcess: e.EXPORT_DOWNLOADS,
    },
    downloadMinRate: {
      bytesPerS: e.EXPORT_DOWNLOAD_MIN_BYTES_PER_S,
      windowMs: e.EXPORT_DOWNLOAD_RATE_WINDOW_MS,
    },
    limits: { readPerMinute: e.RATE_LIMIT_READ_PER_MIN, writePerMinute: e.RATE_LIMIT_WRITE_PER_MIN },
    authFailures: {
      burst: e.AUTH_FAILURE_BURST,
      refillPerMinute: e.AUTH_FAILURES_PER_MIN,
      holdMs: e.AUTH_THROTTLE_HOLD_MS,
    },
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    windowProofMaxHashes: e.WINDOW_PROOF_MAX_HASHES,
    proofStatementTimeoutMs: e.INTEGRITY_STATEMENT_TIMEOUT_MS,
    webhooks: { ...webhookSettings(e), testTimeoutMs: e.WEBHOOK_TEST_TIMEOUT_MS },
    replayLimits: { maxDays: e.WEBHOOK_REPLAY_MAX_DAYS, perTenant: e.WEBHOOK_REPLAYS_PER_TENANT },
    viewerOrigin: e.VIEWER_ORIGIN,
  }),
);

export type GatewayConfig = ReturnType<typeof loadConfig>;
