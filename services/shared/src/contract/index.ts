// The audit event as the services exchange it: its fields, its Avro record and codec, the topics, time.
export * from './audit-event/audit-event.js';
export * from './audit-event/decode-record.js';
export * from './audit-event/event-view.js';
export * from './audit-event/ingest-batch.js';
export * from './audit-event/ingest.schema.js';
export * from './audit-event/ip-address.js';
export * from './audit-event/json-limits.js';
export * from './audit-event/record.schema.js';
export * from './audit-event/text.js';
export * from './bootstrap.js';
export * from './codec/audit-event.codec.js';
export * from './codec/rabin-fingerprint.js';
export * from './codec/schema-registry.js';
export * from './codec/schemas-env.js';
export * from './codec/single-object.codec.js';
export * from './time.js';
export * from './topics.js';
