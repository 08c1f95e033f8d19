import { Buffer } from 'node:buffer';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { equalBytes } from './bytes.js';
import {
  ED25519,
  keyHashInput,
  checkpointToCheck,
  checkpointVerdict,
  namesKey,
  verifierKeyParts,
  type CheckpointCheck,
  type NoteSignature,
  type VerifierKey,
} from './signed-note.js';

export {
  checkpointText,
  parseCheckpoint,
  parseSignedNote,
  signedNoteText,
  type Checkpoint,
  type CheckpointCheck,
  type NoteSignature,
  type VerifierKey,
} from './signed-note.js';

/** The 4-byte key hash that names a key in signatures: SHA-256(name, "\n", 0x01, public key), first 4 bytes. */
export function keyHashOf(name: string, publicKey: Uint8Array): Uint8Array {
  const digest = createHash('sha256').update(keyHashInput(name, publicKey)).digest();
  return new Uint8Array(digest.subarray(0, 4));
}

/** The verifier key text of a public key (the form Go's golang.org/x/mod/sumdb/note reads too). */
export function verifierKeyText(name: string, publicKey: Uint8Array): string {
  const hash = Buffer.from(keyHashOf(name, publicKey)).toString('hex');
  return `${name}+${hash}+${Buffer.from(Uint8Array.of(ED25519, ...publicKey)).toString('base64')}`;
}

/** A verifier key text read back; null when it is malformed or its hash does not match its name and key. */
export function parseVerifierKey(text: string): VerifierKey | null {
  const key = verifierKeyParts(text);
  return key && equalBytes(keyHashOf(key.name, key.publicKey), key.keyHash) ? key : null;
}

/** Whether `signature` is the key's valid Ed25519 signature of `body`. */
export function verifyNoteSignature(body: string, signature: NoteSignature, key: VerifierKey): boolean {
  if (!namesKey(signature, key) || signature.signature.length !== 64) return false;
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.publicKey).toString('base64url') },
    format: 'jwk',
  });
  return verify(null, Buffer.from(body, 'utf8'), publicKey, signature.signature);
}

/**
 * A signed checkpoint checked: well-formed, and signed by one of `keys` (checkpointVerdict says how signatures by
 * keys not given count). The reason says what failed.
 */
export function verifyCheckpoint(note: string, keys: readonly VerifierKey[]): CheckpointCheck {
  const read = checkpointToCheck(note, keys);
  if (!read.ok) return read;
  const valid = read.signed.map(({ signature, key }) => verifyNoteSignature(read.body, signature, key));
  return checkpointVerdict(read.checkpoint, read.signed, valid);
}
