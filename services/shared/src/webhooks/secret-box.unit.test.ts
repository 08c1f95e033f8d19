import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { secretBox } from './secret-box.js';

const box = secretBox(randomBytes(32));
const secret = 'ab'.repeat(32);

describe('secretBox', () => {
  it('opens what it sealed, and never stores the secret in the clear', () => {
    const sealed = box.seal(secret, 'wh_0000aaaa|t1');
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(box.open(sealed, 'wh_0000aaaa|t1')).toBe(secret);
    expect(box.seal(secret, 'wh_0000aaaa|t1').equals(sealed)).toBe(false);
  });

  it('refuses a ciphertext moved to another row, altered, or sealed under another key', () => {
    const sealed = box.seal(secret, 'wh_0000aaaa|t1');
    expect(() => box.open(sealed, 'wh_0000aaab|t1')).toThrow();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => box.open(altered, 'wh_0000aaaa|t1')).toThrow();
    expect(() => secretBox(randomBytes(32)).open(sealed, 'wh_0000aaaa|t1')).toThrow();
    expect(() => box.open(Buffer.from([2, 1, 2]), 'wh_0000aaaa|t1')).toThrow();
  });

  it('wants a 256-bit key', () => {
    expect(() => secretBox(randomBytes(16))).toThrow();
  });
});
