// API keys: their format, hashing and store.
export * from './api-key.js';
export * from './api-keys.repository.js';
export * from './api-key.env.js';
export * from './viewer-token.js';
