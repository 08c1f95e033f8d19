import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeaders, signingKey, verifyWebhookSignature } from './signature.js';
import { signStandardWebhook, standardWebhooksSecret } from './standard-webhooks.js';

const secret = '3c'.repeat(32);
const next = 'd4'.repeat(32);
const body = Buffer.from(
  '{"type":"phi.read","id":"9b2f0c7e-55a1-4b8e-8f7d-1c2d3e4f5a6b","details":{"a":"é"}}',
);
const id = '9b2f0c7e-55a1-4b8e-8f7d-1c2d3e4f5a6b';

describe('signature headers', () => {
  const now = Math.floor(Date.now() / 1000);
  const headers = signatureHeaders(id, body, [next, secret], now);

  it("are verified by the official standardwebhooks package with either secret's whsec_ form", () => {
    for (const key of [next, secret]) {
      expect(new Webhook(standardWebhooksSecret(key)).verify(body, headers)).toEqual(
        JSON.parse(body.toString()),
      );
    }
    expect(() => new Webhook(standardWebhooksSecret('ee'.repeat(32))).verify(body, headers)).toThrow();
    expect(() =>
      new Webhook(standardWebhooksSecret(secret)).verify(Buffer.from(`${body.toString()} `), headers),
    ).toThrow();
  });

  it("match the package's own signing, and carry the event id and the attempt's time", () => {
    const one = signStandardWebhook(id, now, body, [secret]);
    expect(one).toBe(new Webhook(standardWebhooksSecret(secret)).sign(id, new Date(now * 1000), body));
    expect(headers['webhook-id']).toBe(id);
    expect(headers['webhook-timestamp']).toBe(String(now));
    expect(headers['webhook-signature']).toBe(`${signStandardWebhook(id, now, body, [next])} ${one}`);
  });

  it('are the same with the secrets as signing keys (KeyObjects), as the dispatcher keeps them', () => {
    expect(signatureHeaders(id, body, [signingKey(next), signingKey(secret)], now)).toEqual(headers);
  });

  it("keep the spec's X-Service-Signature, with a v1 per secret", () => {
    const header = headers['x-service-signature']!;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(body, header, secret)).toBe(true);
    expect(verifyWebhookSignature(body, header, next)).toBe(true);
  });

  it('give the secret in the form the Standard Webhooks libraries take: its key bytes in base64', () => {
    expect(standardWebhooksSecret(secret)).toBe(`whsec_${Buffer.from(secret).toString('base64')}`);
    expect(Buffer.from(standardWebhooksSecret(secret).slice(6), 'base64').toString()).toBe(secret);
  });
});
