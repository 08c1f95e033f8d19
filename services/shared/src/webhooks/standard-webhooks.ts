import { createHmac, type KeyObject } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, docs/webhooks.md "Signature"), sent beside
 * the spec's X-Service-Signature over the same body bytes, so that receivers can verify with the official
 * `standardwebhooks` libraries. The key is the same secret material: the bytes of the 64 hex characters shown at
 * creation, which the libraries take base64-encoded behind `whsec_`.
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** The secret as the Standard Webhooks libraries take it: `whsec_` and the base64 of its key bytes. */
export function standardWebhooksSecret(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}

/**
 * The `webhook-signature` value: `v1,<base64 HMAC-SHA-256 of "{id}.{timestamp}.{body}">` per secret, separated
 * by spaces (several while an endpoint's secret changes).
 */
export function signStandardWebhook(
  id: string,
  unixSeconds: number,
  body: Uint8Array,
  secrets: readonly (string | KeyObject)[],
): string {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret)
        .update(`${id}.${unixSeconds}.`)
        .update(body)
        .digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}
