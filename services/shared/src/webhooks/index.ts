// Webhook endpoints, deliveries, signatures and replays (docs/webhooks.md).
export * from './attempt-failure.js';
export * from './cached-resolve.js';
export * from './delivery-attempts.repository.js';
export * from './delivery-job.js';
export * from './delivery-payload.js';
export * from './event-filter.js';
export * from './guarded-connector.js';
export * from './replay-window.js';
export * from './secret-box.js';
export * from './signature.js';
export * from './standard-webhooks.js';
export * from './target-policy.js';
export * from './webhook-env.js';
export * from './webhook-replays.repository.js';
export * from './webhook-target.js';
export * from './webhook.client.js';
export * from './webhooks.repository.js';
