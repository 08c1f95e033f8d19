// Export jobs and their files (docs/exports.md).
export * from './export-expiry.js';
export * from './export-files.js';
export * from './export-job.js';
export * from './export-jobs.repository.js';
export * from './export-storage.js';
export * from './filesystem.files.js';
export * from './s3-multipart.writer.js';
export * from './s3.files.js';
