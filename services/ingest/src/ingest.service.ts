import { systemClock } from '@audit/shared/contract';
import { type ServiceHost } from '@audit/shared/host';
import { buildApp } from './app.js';
import type { IngestConfig } from './config.js';

/** Ingest: it acknowledges an event once the audit topic has it. */
export async function ingestService(host: ServiceHost, config: IngestConfig): Promise<void> {
  const { admin, connect, auditLog } = host.kafka(config.kafka);
  const app = await buildApp({
    logger: host.logger,
    metrics: host.metrics,
    token: config.token,
    maxBytes: config.maxBytes,
    publishTimeoutMs: config.publishTimeoutMs,
    clock: systemClock,
    // Nothing outlives the caller's wait: after a 503 the client re-sends, so the queued copy is dropped unsent.
    publisher: auditLog({ maxQueuedBytes: config.maxQueuedBytes, maxWaitMs: config.publishTimeoutMs }),
    startup: host.startup,
    readiness: { kafka: () => admin.describeCluster() },
  });
  // Closed before the producer: requests in flight finish (each waits for Kafka's acknowledgement) first.
  await host.listen(app, config);
  await connect();
  host.finish();
}
