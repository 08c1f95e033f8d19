import { createHmac, createSecretKey } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './index.js';

const secret = '0f'.repeat(32);
const body = Buffer.from('{"type":"phi.read","id":"e1","details":{"a":"é"}}');
const t = 1_790_000_000;
const at = (s: number) => ({ now: () => s * 1000 });
const header = signWebhook(body, secret, t);
const [tPart, v1Part] = header.split(',') as [string, string];
const otherV1 = `v1=${'0'.repeat(64)}`;
const verifies = (h: string | string[] | undefined) => verifyWebhookSignature(body, h, secret, at(t));

describe('webhook signatures', () => {
  it('signs as the spec says: HMAC-SHA-256 over "t=<t>." and the raw body, keyed with the secret text', () => {
    const expected = createHmac('sha256', secret)
      .update(`t=${t}.${body.toString('utf8')}`)
      .digest('hex');
    expect(header).toBe(`t=${t},v1=${expected}`);
  });

  it('signs the same with the secret as a KeyObject of its bytes, as a sender keeps it', () => {
    expect(signWebhook(body, createSecretKey(Buffer.from(secret)), t)).toBe(header);
  });

  it('signs with every secret given, one v1 each, which a holder of either verifies', () => {
    const next = 'a1'.repeat(32);
    const both = signWebhook(body, [next, secret], t);
    expect(both).toBe(`${signWebhook(body, next, t)},${v1Part}`);
    expect(verifyWebhookSignature(body, both, secret, at(t))).toBe(true);
    expect(verifyWebhookSignature(body, both, next, at(t))).toBe(true);
    expect(verifyWebhookSignature(body, both, 'ff'.repeat(32), at(t))).toBe(false);
  });

  it('verifies its own signature within the tolerance, on both sides of now', () => {
    expect(verifyWebhookSignature(body, header, secret, at(t))).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, at(t + 300))).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, at(t - 300))).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, at(t + 301))).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, at(t - 301))).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, { ...at(t + 301), toleranceS: 301 })).toBe(true);
  });

  it('refuses another body, another or an empty secret, and a re-serialized body', () => {
    const opts = at(t);
    expect(verifyWebhookSignature(Buffer.from(`${body.toString()} `), header, secret, opts)).toBe(false);
    expect(verifyWebhookSignature(body, header, 'ff'.repeat(32), opts)).toBe(false);
    expect(verifyWebhookSignature(body, signWebhook(body, '', t), '', opts)).toBe(false);
    const reserialized = JSON.stringify(JSON.parse(body.toString()), null, 1);
    expect(verifyWebhookSignature(reserialized, header, secret, opts)).toBe(false);
    expect(verifyWebhookSignature(body.toString('utf8'), header, secret, opts)).toBe(true);
  });

  it('parses tolerantly: unknown parts (also with a second "="), parts without "=", spaces, several v1', () => {
    for (const ok of [
      `${tPart},${otherV1},${v1Part},x=a=b`,
      `x=a=b,${v1Part},v0=zz,${tPart}`,
      `${tPart}, ${v1Part} ,v2=${'ab'.repeat(32)},flag`,
      `${tPart},${v1Part.toUpperCase().replace('V1', 'v1')}`,
      `${tPart},v1=short,v1=${'g'.repeat(64)},${v1Part}`,
      [tPart, v1Part],
    ]) {
      expect(verifies(ok), String(ok)).toBe(true);
    }
  });

  it('refuses a header without exactly one well-formed t, or without a matching well-formed v1', () => {
    for (const bad of [
      undefined,
      '',
      ',,,',
      v1Part,
      `T=${t},${v1Part}`,
      `t=${t}x,${v1Part}`,
      `t=-${t},${v1Part}`,
      `t=${t},t=${t},${v1Part}`,
      tPart,
      `${tPart},${otherV1}`,
      `${tPart},${v1Part}0`,
      `${tPart},V1=${v1Part.slice(3)}`,
      header.replace(`t=${t}`, `t=${t + 1}`),
      header.replace(`t=${t}`, `t=0${t}`),
    ]) {
      expect(verifies(bad), String(bad)).toBe(false);
    }
  });

  it('never throws on a header, and extra unknown parts anywhere never change the answer', () => {
    fc.assert(
      fc.property(fc.string(), (junk) => {
        expect(verifies(junk)).toBe(false);
      }),
    );
    const unknownPart = fc.string().filter((s) => !s.includes(',') && !/^[ \t]*(t|v1)=/.test(s));
    fc.assert(
      fc.property(fc.array(unknownPart), fc.nat(), (extra, position) => {
        const parts = [tPart, v1Part];
        parts.splice(position % 3, 0, ...extra);
        expect(verifies(parts.join(','))).toBe(true);
      }),
    );
  });

  it('throws for a body that is not bytes or text (a parsed body cannot be verified)', () => {
    const parsed = JSON.parse(body.toString()) as unknown as string;
    expect(() => verifyWebhookSignature(parsed, header, secret, at(t))).toThrow(TypeError);
  });
});
