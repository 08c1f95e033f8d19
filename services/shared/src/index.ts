export * from './audit-event/audit-event.js';
export * from './audit-event/event-filters.js';
export * from './audit-event/event-view.js';
export * from './export-jobs/export-job.js';
export * from './export-jobs/export-jobs.repository.js';
export * from './export-jobs/export-files.js';
export * from './export-jobs/filesystem.files.js';
export * from './export-jobs/s3.files.js';
export * from './audit-event/ingest-batch.js';
export * from './audit-event/ingest.schema.js';
export * from './audit-event/record.schema.js';
export * from './clickhouse/clickhouse-client.js';
export * from './clickhouse/cluster.js';
export * from './clickhouse/cluster-ddl.js';
export * from './clickhouse/schema-writer.js';
export * from './clickhouse/sql-quote.js';
export * from './codec/audit-event.codec.js';
export * from './codec/schema-registry.js';
export * from './codec/single-object.codec.js';
export * from './config/components.js';
export * from './config/env.js';
export * from './deadline.js';
export * from './recent-result.js';
export * from './retry.js';
export * from './capped-map.js';
export * from './errors.js';
export * from './http/bearer.js';
export * from './http/error-handler.js';
export * from './http/health.plugin.js';
export * from './kafka/audit-publisher.js';
export * from './kafka/publish-within.js';
export * from './kafka/kafka-client.js';
export * from './kafka/producer.js';
export * from './kafka/key-partitioner.js';
export * from './kafka/range-reader.js';
export * from './kafka/topic-admin.js';
export * from './kafka/kafka-errors.js';
export * from './logger.js';
export * from './migrations/clickhouse.migrator.js';
export * from './migrations/migration-files.js';
export * from './migrations/postgres.migrator.js';
export * from './shutdown.js';
export * from './time.js';
export * from './topics.js';
export * from './validation/zod-field-errors.js';
export * from './kafka/coalescing-sender.js';
export * from './clickhouse/tsv.js';
export * from './kafka/bootstrap.js';
export * from './http/json-body.js';
export * from './unicode.js';
export * from './api-keys/api-key.js';
export * from './api-keys/cidr.js';
export * from './api-keys/api-keys.repository.js';
export * from './http/server.js';
export * from './http/error-body.js';
export * from './postgres/transaction.js';
export * from './webhooks/event-filter.js';
export * from './webhooks/secret-box.js';
export * from './webhooks/signature.js';
export * from './webhooks/standard-webhooks.js';
export * from './webhooks/target-policy.js';
export * from './webhooks/webhook-target.js';
export * from './webhooks/cached-resolve.js';
export * from './webhooks/webhooks.repository.js';
export * from './webhooks/rate-slots.repository.js';
export * from './webhooks/webhook-replays.repository.js';
export * from './webhooks/replay-window.js';
export * from './config/webhook-env.js';
export * from './audit-event/text.js';
export * from './audit-event/ip-address.js';
export * from './webhooks/delivery-attempts.repository.js';
export * from './webhooks/delivery-job.js';
export * from './metrics/metrics.registry.js';
export * from './metrics/http-metrics.plugin.js';
export * from './metrics/consumer-lag.js';
export * from './metrics/scrape-cache.js';
export * from './webhooks/delivery-payload.js';
export * from './webhooks/webhook.client.js';
export * from './projection/projection-tables.js';
export * from './projection/projection-state.store.js';
export * from './startup.js';
export * from './host/service-host.js';
export * from './host/run-service.js';
export * from './kafka/restartable-consumer.js';
export * from './http/startup-gate.js';
export * from './projection/live-tables.js';
export * from './audit-event/decode-record.js';
export * from './projection/running-inserts.js';
export * from './projection/filter-index.js';
export * from './projection/filter-index.state.js';
export * from './integrity/proof-ranges.js';
export * from './integrity/leaf-tiles.js';
export * from './integrity/leaf-tiles.repository.js';
export * from './integrity/tree-frontier.js';
export * from './integrity/checkpoint-signer.js';
// The verifier's own functions: the service builds trees and checkpoints with the code receivers check them with.
export {
  EMPTY_ROOT,
  leafEventOf,
  leafHashOf,
  parseVerifierKey,
  rootOf,
  verifyCheckpoint,
  type Checkpoint,
  type LeafEvent,
  type VerifierKey,
} from '../../../packages/integrity-verifier/src/index.js';
export * from './config/integrity-env.js';
export * from './integrity/signing-key.files.js';
export * from './integrity/integrity-keys.repository.js';
export * from './integrity/integrity.store.js';
export * from './topic-generations/generations.js';
export * from './topic-generations/generations.repository.js';
export * from './topic-generations/generation-topics.kafka.js';
export * from './topic-generations/audit-topic.route.js';
export * from './topic-generations/audit-generations.js';
export * from './topic-generations/growth-watch.js';
