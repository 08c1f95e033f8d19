import { createPublicKey, sign, type KeyObject } from 'node:crypto';
import {
  checkpointText,
  keyHashOf,
  signedNoteText,
  verifierKeyText,
  type Checkpoint,
} from '@audit-trail/integrity-verifier';

/** An Ed25519 signing key, by the name its signatures carry (docs/integrity.md "Checkpoints"). */
export interface CheckpointKey {
  name: string;
  privateKey: KeyObject;
}

/** The raw 32 bytes of an Ed25519 public key. */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new TypeError('not an Ed25519 key');
  return new Uint8Array(Buffer.from(jwk.x, 'base64url'));
}

/** The verifier key text that checks the key's signatures. */
export const verifierKeyOf = (key: CheckpointKey) => verifierKeyText(key.name, rawPublicKey(key.privateKey));

/** The checkpoint as a C2SP signed note, signed by the key. */
export function signCheckpoint(checkpoint: Checkpoint, key: CheckpointKey): string {
  const body = checkpointText(checkpoint);
  const signature = sign(null, Buffer.from(body, 'utf8'), key.privateKey);
  const keyHash = keyHashOf(key.name, rawPublicKey(key.privateKey));
  return signedNoteText(body, [{ keyName: key.name, keyHash, signature: new Uint8Array(signature) }]);
}
