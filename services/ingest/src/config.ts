import { positiveInt, secret, serviceConfig } from '@audit/shared/platform';

/** The environment variables ingest reads, each described for docs/configuration.md. */
export const { envSchema, loadConfig } = serviceConfig(
  'ingest',
  ['kafka'],
  {
    INGEST_TOKEN: secret(16).meta({
      description: 'bearer token: at least 16 printable ASCII characters, no spaces',
      defaultText: 'required (`npm start` generates one)',
    }),
    INGEST_MAX_BYTES: positiveInt(16 * 1024 * 1024).meta({ description: 'request body cap (413 above)' }),
    INGEST_PUBLISH_TIMEOUT_MS: positiveInt(10_000).meta({
      description: "wait for Kafka's acknowledgement before answering 503",
    }),
    INGEST_MAX_QUEUED_BYTES: positiveInt(64 * 1024 * 1024).meta({
      description:
        'bytes waiting for Kafka at most; beyond, requests get 503 at once (an outage must not fill the memory)',
    }),
  },
  (e) => ({
    token: e.INGEST_TOKEN,
    maxBytes: e.INGEST_MAX_BYTES,
    publishTimeoutMs: e.INGEST_PUBLISH_TIMEOUT_MS,
    maxQueuedBytes: e.INGEST_MAX_QUEUED_BYTES,
  }),
);

export type IngestConfig = ReturnType<typeof loadConfig>;
