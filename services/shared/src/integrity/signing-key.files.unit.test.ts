import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawPublicKey } from './checkpoint-signer.js';
import { readSigningKey, removeSigningKey, signingKeyFile, writeSigningKey } from './signing-key.files.js';

const root = mkdtempSync(join(tmpdir(), 'signing-keys-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('signing key files', () => {
  it('keeps a private key readable by its owner only, in a directory of its own, and reads it back', async () => {
    const dir = join(root, 'keys');
    const { privateKey } = generateKeyPairSync('ed25519');
    const path = await writeSigningKey(dir, 'log-20261126-ab12', privateKey);
    expect(path).toBe(signingKeyFile(dir, 'log-20261126-ab12'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const read = await readSigningKey(dir, 'log-20261126-ab12');
    expect(rawPublicKey(read!)).toEqual(rawPublicKey(privateKey));
  });

  it('never replaces a key file, and reads a missing one as null', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    await writeSigningKey(root, 'once', privateKey);
    await expect(writeSigningKey(root, 'once', generateKeyPairSync('ed25519').privateKey)).rejects.toThrow(
      /EEXIST/,
    );
    await removeSigningKey(root, 'once');
    expect(await readSigningKey(root, 'once')).toBeNull();
  });

  it('refuses names that are no key name, before touching the file system', async () => {
    for (const name of ['../escape', 'a b', 'a+b', '', 'x'.repeat(101)]) {
      expect(() => signingKeyFile(root, name)).toThrow(RangeError);
    }
  });
});
