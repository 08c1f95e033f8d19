// The services sign with, and receivers install, one implementation: the publishable package's. It is imported by
// its name and resolved to its TypeScript source (tsconfig.json's `paths`: tsx, tsc and vitest), so the services
// never run a stale build; the image runs the package's JavaScript compiled with the services.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { SIGNATURE_HEADER, signWebhook } from '@audit-trail/webhook-verifier';
import { signStandardWebhook, STANDARD_WEBHOOK_HEADERS } from './standard-webhooks.js';

export {
  SIGNATURE_HEADER,
  signWebhook,
  verifyWebhookSignature,
  type VerifyOptions,
} from '@audit-trail/webhook-verifier';

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
 * the KeyObject; docs/benchmarks/journal.md "bench:webhooks").
 */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}
