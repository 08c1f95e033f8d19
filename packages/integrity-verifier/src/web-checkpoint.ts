// Checkpoints' signatures and verifier keys checked with WebCrypto (SHA-256, Ed25519), for the web entry: the same
// rules as checkpoint.ts, over the same parsing (signed-note.ts), with each check awaited.
import { equalBytes } from './bytes.js';
import {
  keyHashInput,
  checkpointToCheck,
  checkpointVerdict,
  namesKey,
  verifierKeyParts,
  type CheckpointCheck,
  type NoteSignature,
  type VerifierKey,
} from './signed-note.js';
import { ed25519Verify, sha256 } from './web-crypto.js';

/** The 4-byte key hash that names a key in signatures: SHA-256(name, "\n", 0x01, public key), first 4 bytes. */
export async function keyHashOf(name: string, publicKey: Uint8Array): Promise<Uint8Array> {
  return (await sha256(keyHashInput(name, publicKey))).slice(0, 4);
}

/** A verifier key text read back; null when it is malformed or its hash does not match its name and key. */
export async function parseVerifierKey(text: string): Promise<VerifierKey | null> {
  const key = verifierKeyParts(text);
  return key && equalBytes(await keyHashOf(key.name, key.publicKey), key.keyHash) ? key : null;
}

/** Whether `signature` is the key's valid Ed25519 signature of `body`. */
export async function verifyNoteSignature(
  body: string,
  signature: NoteSignature,
  key: VerifierKey,
): Promise<boolean> {
  if (!namesKey(signature, key) || signature.signature.length !== 64) return false;
  return ed25519Verify(key.publicKey, signature.signature, new TextEncoder().encode(body));
}

/** A signed checkpoint checked: well-formed, and signed by one of `keys`, with checkpoint.ts's verdicts and reasons. */
export async function verifyCheckpoint(note: string, keys: readonly VerifierKey[]): Promise<CheckpointCheck> {
  const read = checkpointToCheck(note, keys);
  if (!read.ok) return read;
  const valid = await Promise.all(
    read.signed.map(({ signature, key }) => verifyNoteSignature(read.body, signature, key)),
  );
  return checkpointVerdict(read.checkpoint, read.signed, valid);
}
