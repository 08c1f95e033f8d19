// What the service keeps of a tenant besides its trail: the name it is shown by (docs/reports.md "Tenant names").
export * from './tenant-profiles.repository.js';
