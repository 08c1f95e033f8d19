import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { verifierKeyOf } from './checkpoint-signer.js';
import { SIGNING_KEY_NAME } from './integrity-env.js';

/** Where the named key's private half is kept in the key directory. */
export const signingKeyFile = (dir: string, name: string) => {
  if (!SIGNING_KEY_NAME.test(name)) throw new RangeError(`not a signing key name: ${JSON.stringify(name)}`);
  return join(dir, `${name}.pem`);
};

/**
 * Writes a signing key's private half (PKCS #8 PEM) into the key directory, readable by its owner only. Never
 * replaces a file: a key once made is the key its signatures were made with.
 */
export async function writeSigningKey(dir: string, name: string, key: KeyObject): Promise<string> {
  const path = signingKeyFile(dir, name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(path, key.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  return path;
}

/** The private half of the named key, or null when the directory has no file of it. */
export async function readSigningKey(dir: string, name: string): Promise<KeyObject | null> {
  let pem: string;
  try {
    pem = await readFile(signingKeyFile(dir, name), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return createPrivateKey(pem);
}

/** Removes a key file a change that did not happen wrote. */
export async function removeSigningKey(dir: string, name: string): Promise<void> {
  await rm(signingKeyFile(dir, name), { force: true });
}

/**
 * The verifier keys of every private half in the key directory: what a verification may trust without taking the
 * database's word for it. None when the directory does not exist.
 */
export async function keyDirectoryVerifierKeys(dir: string): Promise<string[]> {
  let files: string[];
  try {
    files = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const names = files.filter((f) => f.endsWith('.pem')).map((f) => f.slice(0, -'.pem'.length));
  const keys = [];
  for (const name of names.filter((n) => SIGNING_KEY_NAME.test(n)).sort()) {
    keys.push(verifierKeyOf({ name, privateKey: (await readSigningKey(dir, name))! }));
  }
  return keys;
}
