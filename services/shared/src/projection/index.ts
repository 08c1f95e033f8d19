// The projection in ClickHouse: its tables and generations, the filter index, and the filters that read it.
export * from './event-filters.js';
export * from './filter-index.state.js';
export * from './filter-index.js';
export * from './live-tables.js';
export * from './projection-state.store.js';
export * from './projection-tables.js';
export * from './running-inserts.js';
