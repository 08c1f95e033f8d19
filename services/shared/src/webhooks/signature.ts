// The services sign with, and receivers install, one implementation: the publishable package's. It is imported
// from its TypeScript source, as every workspace is (tsx, no build step), so the services never run a stale build.
export {
  SIGNATURE_HEADER,
  signWebhook,
  verifyWebhookSignature,
  type VerifyOptions,
} from '../../../../packages/webhook-verifier/src/index.js';
