// Checkpoints, signed notes and verifier keys as text (docs/integrity.md "Checkpoints"), written and read without
// any hashing or signature: pure, for the Node entry's checks and the web entry's alike (checkpoint.ts,
// web-checkpoint.ts).
import { equalBytes, fromBase64, fromHex, toBase64 } from './bytes.js';

/**
 * A checkpoint of a tenant's tree (docs/integrity.md "Checkpoints"), in the C2SP tlog-checkpoint format: the
 * origin (which tree), its size, its root hash, and the time it was made as an extension line.
 */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** When it was made, epoch milliseconds. */
  time: number;
}

/** One signature line of a signed note: the key's name and 4-byte hash, and the Ed25519 signature. */
export interface NoteSignature {
  keyName: string;
  keyHash: Uint8Array;
  signature: Uint8Array;
}

/** A public key as verifiers are given it: `<name>+<8 hex key hash>+<base64 of 0x01 and the 32-byte key>`. */
export interface VerifierKey {
  name: string;
  keyHash: Uint8Array;
  publicKey: Uint8Array;
}

export type CheckpointCheck =
  { ok: true; checkpoint: Checkpoint; keyName: string } | { ok: false; reason: string };

// C2SP signed-note: the signature algorithm byte of Ed25519, and the line that begins each signature.
export const ED25519 = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';
const KEY_NAME = /^[^\s+]+$/;
const SIZE = /^(?:0|[1-9][0-9]{0,15})$/;
const TIME_LINE = /^time (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00)$/;

const isoTime = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/** The checkpoint's text, the body its signatures sign: four lines, each ending in a newline. */
export function checkpointText(c: Checkpoint): string {
  return `${c.origin}\n${c.size}\n${toBase64(c.root)}\ntime ${isoTime(c.time)}\n`;
}

/** A checkpoint's text read back; null for anything checkpointText does not write. */
export function parseCheckpoint(text: string): Checkpoint | null {
  const lines = text.split('\n');
  if (lines.length !== 5 || lines[4] !== '') return null;
  const [origin, size, root, time] = lines as [string, string, string, string];
  const hash = fromBase64(root);
  const at = TIME_LINE.exec(time);
  if (!origin || /\s$|^\s/.test(origin) || !SIZE.test(size) || hash?.length !== 32 || !at) return null;
  const checkpoint = { origin, size: Number(size), root: hash, time: Date.parse(at[1]!) };
  if (!Number.isSafeInteger(checkpoint.size) || !Number.isFinite(checkpoint.time)) return null;
  return checkpointText(checkpoint) === text ? checkpoint : null;
}

/** What a key's hash is the SHA-256 of (its first 4 bytes): the name, a newline, 0x01 and the public key. */
export function keyHashInput(name: string, publicKey: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(`${name}\n`);
  const input = new Uint8Array(text.length + 1 + publicKey.length);
  input.set(text);
  input[text.length] = ED25519;
  input.set(publicKey, text.length + 1);
  return input;
}

/**
 * A verifier key text's parts, its key hash as written: null when it is malformed. That the hash is the key's
 * is for the caller to check, with its platform's SHA-256.
 */
export function verifierKeyParts(text: string): VerifierKey | null {
  // The name has no '+'; the base64 key may.
  const parts = /^([^\s+]+)\+([0-9a-f]{8})\+(\S+)$/.exec(text);
  if (!parts) return null;
  const [, name, hash, key] = parts as unknown as [string, string, string, string];
  const raw = fromBase64(key);
  if (raw?.length !== 33 || raw[0] !== ED25519) return null;
  return { name, keyHash: fromHex(hash)!, publicKey: raw.subarray(1) };
}

// ASCII control characters but the newline, which a signed note may not hold.
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/;

/**
 * A signed note split into its body and signature lines; null when it is not one. Signatures of any algorithm
 * are read (a key hash and at least one byte): those by keys the verifier does not know are ignored later.
 */
export function parseSignedNote(text: string): { body: string; signatures: NoteSignature[] } | null {
  const split = text.lastIndexOf('\n\n');
  if (split < 0 || !text.endsWith('\n') || CONTROL.test(text)) return null;
  const body = text.slice(0, split + 1);
  const signatures: NoteSignature[] = [];
  for (const line of text.slice(split + 2, -1).split('\n')) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return null;
    const [name, sig, extra] = line.slice(SIGNATURE_PREFIX.length).split(' ');
    const bytes = sig === undefined ? null : fromBase64(sig);
    if (extra !== undefined || !name || !KEY_NAME.test(name) || !bytes || bytes.length < 5) return null;
    signatures.push({ keyName: name, keyHash: bytes.subarray(0, 4), signature: bytes.subarray(4) });
  }
  return signatures.length > 0 ? { body, signatures } : null;
}

/** The note's text: its body, a blank line, and one line per signature. */
export function signedNoteText(body: string, signatures: readonly NoteSignature[]): string {
  const lines = signatures.map(
    (s) => `${SIGNATURE_PREFIX}${s.keyName} ${toBase64(Uint8Array.of(...s.keyHash, ...s.signature))}\n`,
  );
  return `${body}\n${lines.join('')}`;
}

/** Whether the signature names the key: its name and key hash. */
export const namesKey = (signature: NoteSignature, key: VerifierKey): boolean =>
  signature.keyName === key.name && equalBytes(signature.keyHash, key.keyHash);

/** A signed checkpoint's note read for checking: its checkpoint, and each signature by a key given, in order. */
export type CheckpointToCheck =
  | {
      ok: true;
      body: string;
      checkpoint: Checkpoint;
      signed: { signature: NoteSignature; key: VerifierKey }[];
    }
  | { ok: false; reason: string };

export function checkpointToCheck(note: string, keys: readonly VerifierKey[]): CheckpointToCheck {
  const parsed = parseSignedNote(note);
  if (!parsed) return { ok: false, reason: 'not a signed note' };
  const checkpoint = parseCheckpoint(parsed.body);
  if (!checkpoint) return { ok: false, reason: 'not a checkpoint' };
  const signed = parsed.signatures.flatMap((signature) => {
    const key = keys.find((k) => namesKey(signature, k));
    return key ? [{ signature, key }] : [];
  });
  return { ok: true, body: parsed.body, checkpoint, signed };
}

/**
 * The verdict once each of `signed`'s signatures was checked (`valid`, in its order). As Go's
 * golang.org/x/mod/sumdb/note has it, a signature by a key not given was ignored, and one by a key given that does
 * not verify fails the whole note.
 */
export function checkpointVerdict(
  checkpoint: Checkpoint,
  signed: readonly { key: VerifierKey }[],
  valid: readonly boolean[],
): CheckpointCheck {
  if (valid.includes(false)) return { ok: false, reason: 'bad signature' };
  const signer = signed[0]?.key.name;
  return signer ? { ok: true, checkpoint, keyName: signer } : { ok: false, reason: 'signed by no known key' };
}
