export * from './sample-record.js';
export * from './stored-key.js';
