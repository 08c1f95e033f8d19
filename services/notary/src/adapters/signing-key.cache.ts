import {
  integrityKeysRepository,
  rawPublicKey,
  readSigningKey,
  type CheckpointKey,
} from '@audit/shared/integrity';
import type pg from 'pg';

/** The active key's private half is not where this notary looks for it (docs/operations.md "Integrity"). */
export class SigningKeyUnavailableError extends Error {
  override name = 'SigningKeyUnavailableError';
}

/**
 * The active signing key, read from the key directory when it changes: the name and public half come from
 * Postgres (what `ops integrity keys` made active), the private half from the file, which must match.
 */
export function signingKeyCache(pool: pg.Pool, keyDir: string) {
  let cached: CheckpointKey | null = null;
  return async (): Promise<CheckpointKey | null> => {
    const active = await integrityKeysRepository.active(pool);
    if (!active) return null;
    if (cached?.name === active.name) return cached;
    const privateKey = await readSigningKey(keyDir, active.name);
    if (!privateKey)
      throw new SigningKeyUnavailableError(
        `the active key ${active.name} has no private key file in ${keyDir}`,
      );
    if (!Buffer.from(rawPublicKey(privateKey)).equals(active.public_key))
      throw new SigningKeyUnavailableError(`the file of key ${active.name} in ${keyDir} is another key`);
    cached = { name: active.name, privateKey };
    return cached;
  };
}
