export * from './sample-record.js';
export * from './stored-key.js';
export * from './sample-view.js';
