// What every service runs in (docs/architecture.md "Service host").
export * from './run-service.js';
export * from './service-host.js';
