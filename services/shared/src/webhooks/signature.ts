// The services sign with, and receivers install, one implementation: the publishable package's. It is imported
// from its TypeScript source, as every workspace is (tsx, no build step), so the services never run a stale build.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { SIGNATURE_HEADER, signWebhook } from '../../../../packages/webhook-verifier/src/index.js';
import { signStandardWebhook, STANDARD_WEBHOOK_HEADERS } from './standard-webhooks.js';

export {
  SIGNATURE_HEADER,
  signWebhook,
  verifyWebhookSignature,
  type VerifyOptions,
} from '../../../../packages/webhook-verifier/src/index.js';

/** A secret as the services hold it: its text, or a KeyObject of its UTF-8 bytes (`signingKey`). */
export type WebhookSecret = string | KeyObject;

/**
 * The signature headers of one attempt (docs/webhooks.md "Signature"): the spec's X-Service-Signature and
 * Standard Webhooks' three, over the same body bytes, with the same time, one signature per live secret (the
 * newest first). `messageId` is what stays the same across retries: the event's id. A sender keeps its secrets
 * as KeyObjects (`signingKey`).
 */
export function signatureHeaders(
  messageId: string,
  body: Uint8Array,
  secrets: readonly WebhookSecret[],
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
export function liveSecrets<S extends WebhookSecret>(
  endpoint: { secret: S; previous: { secret: S; expiresAt: number } | null },
  now: number,
): S[] {
  return endpoint.previous && now < endpoint.previous.expiresAt
    ? [endpoint.secret, endpoint.previous.secret]
    : [endpoint.secret];
}

/**
 * A secret as a sender keeps it: a KeyObject of its UTF-8 bytes. Node imports a raw HMAC key anew on every call,
 * which cost several times the HMAC of a 1 KB payload (measured: 17-25 µs a signature with the text, 3 µs with
 * the KeyObject; docs/benchmarks.md "bench:webhooks").
 */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}
