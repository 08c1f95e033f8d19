// How long a tenant's trail is kept, and what legal holds keep past it (docs/retention.md).
export * from './legal-hold.js';
export * from './purge-env.js';
export * from './purge-history.js';
export * from './purge-run.js';
export * from './purge.clickhouse.js';
export * from './purge-scope.js';
export * from './purge.repository.js';
export * from './retention-audit-event.js';
export * from './retention-filter.js';
export * from './retention-policy.js';
export * from './retention.repository.js';
export * from './retention-view.js';
