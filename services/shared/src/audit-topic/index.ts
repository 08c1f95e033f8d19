// The audit topic's generations (docs/topic-growth.md) and the publisher of audit events to it.
export * from './audit-generations.js';
export * from './audit-publisher.js';
export * from './audit-topic.route.js';
export * from './generation-topics.kafka.js';
export * from './generations.repository.js';
export * from './generations.js';
export * from './growth-watch.js';
export * from './topic-retention.js';
