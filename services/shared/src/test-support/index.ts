export * from './sample-record.js';
