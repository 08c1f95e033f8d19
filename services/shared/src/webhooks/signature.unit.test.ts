import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './signature.js';

const secret = '0f'.repeat(32);
const body = Buffer.from('{"type":"phi.read","id":"e1","details":{"a":"é"}}');
const t = 1_790_000_000;
const at = (s: number) => ({ now: () => s * 1000 });

describe('webhook signatures', () => {
  it('signs as the spec says: HMAC-SHA-256 over "t=<t>." and the raw body, keyed with the secret text', () => {
    const expected = createHmac('sha256', secret)
      .update(`t=${t}.${body.toString('utf8')}`)
      .digest('hex');
    expect(signWebhook(body, secret, t)).toBe(`t=${t},v1=${expected}`);
  });

  it('verifies its own signature within the tolerance, on both sides of now', () => {
    const header = signWebhook(body, secret, t);
    expect(verifyWebhookSignature(body, header, secret, at(t))).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, at(t + 300))).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, at(t - 300))).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, at(t + 301))).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, at(t - 301))).toBe(false);
  });

  it('refuses another body, another secret, a re-serialized body, and malformed headers', () => {
    const header = signWebhook(body, secret, t);
    const opts = at(t);
    expect(verifyWebhookSignature(Buffer.from(`${body.toString()} `), header, secret, opts)).toBe(false);
    expect(verifyWebhookSignature(body, header, 'ff'.repeat(32), opts)).toBe(false);
    const reserialized = JSON.stringify(JSON.parse(body.toString()), null, 1);
    expect(verifyWebhookSignature(reserialized, header, secret, opts)).toBe(false);
    for (const bad of [
      undefined,
      '',
      header.replace('t=', 'x='),
      header.replace(/v1=.*/, 'v1=zz'),
      `${header},t`,
      header.replace(`t=${t}`, `t=${t + 1}`),
      `t=${t}`,
    ]) {
      expect(verifyWebhookSignature(body, bad, secret, opts), String(bad)).toBe(false);
    }
  });

  it('accepts any one of several v1 values (a receiver may see two during a secret change)', () => {
    const header = signWebhook(body, secret, t);
    const other = signWebhook(body, 'aa'.repeat(32), t).split(',')[1]!;
    expect(
      verifyWebhookSignature(body, `${header.split(',')[0]},${other},${header.split(',')[1]}`, secret, at(t)),
    ).toBe(true);
  });
});
