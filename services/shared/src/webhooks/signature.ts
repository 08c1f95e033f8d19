// The services sign with, and receivers install, one implementation: the publishable package's. It is imported
// from its TypeScript source, as every workspace is (tsx, no build step), so the services never run a stale build.
import { SIGNATURE_HEADER, signWebhook } from '../../../../packages/webhook-verifier/src/index.js';
import { signStandardWebhook, STANDARD_WEBHOOK_HEADERS } from './standard-webhooks.js';

export {
  SIGNATURE_HEADER,
  signWebhook,
  verifyWebhookSignature,
  type VerifyOptions,
} from '../../../../packages/webhook-verifier/src/index.js';

/**
 * The signature headers of one attempt (docs/webhooks.md "Signature"): the spec's X-Service-Signature and
 * Standard Webhooks' three, over the same body bytes, with the same time, one signature per live secret (the
 * newest first). `messageId` is what stays the same across retries: the event's id.
 */
export function signatureHeaders(
  messageId: string,
  body: Uint8Array,
  secrets: readonly string[],
  unixSeconds: number,
): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signWebhook(body, secrets, unixSeconds),
    [STANDARD_WEBHOOK_HEADERS.id]: messageId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(unixSeconds),
    [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook(messageId, unixSeconds, body, secrets),
  };
}

/**
 * The secrets an attempt at `now` is signed with (docs/webhooks.md "Secrets"): the current one, and the one a
 * rotation replaced while its overlap runs.
 */
export function liveSecrets(
  endpoint: { secret: string; previous: { secret: string; expiresAt: number } | null },
  now: number,
): string[] {
  return endpoint.previous && now < endpoint.previous.expiresAt
    ? [endpoint.secret, endpoint.previous.secret]
    : [endpoint.secret];
}
