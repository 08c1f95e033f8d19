import { Buffer } from 'node:buffer';
import { createHash, createPublicKey, verify } from 'node:crypto';

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

// C2SP signed-note: the signature algorithm byte of Ed25519, and the line that begins each signature.
const ED25519 = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';
const KEY_NAME = /^[^\s+]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const SIZE = /^(?:0|[1-9][0-9]{0,15})$/;
const TIME_LINE = /^time (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00)$/;

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
function fromBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text) || text.length % 4 !== 0) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}
const isoTime = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/** The checkpoint's text, the body its signatures sign: four lines, each ending in a newline. */
export function checkpointText(c: Checkpoint): string {
  return `${c.origin}\n${c.size}\n${base64(c.root)}\ntime ${isoTime(c.time)}\n`;
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

/** The 4-byte key hash that names a key in signatures: SHA-256(name, "\n", 0x01, public key), first 4 bytes. */
export function keyHashOf(name: string, publicKey: Uint8Array): Uint8Array {
  const digest = createHash('sha256')
    .update(`${name}\n`)
    .update(Uint8Array.of(ED25519))
    .update(publicKey)
    .digest();
  return new Uint8Array(digest.subarray(0, 4));
}

/** The verifier key text of a public key (the form Go's golang.org/x/mod/sumdb/note reads too). */
export function verifierKeyText(name: string, publicKey: Uint8Array): string {
  const hash = Buffer.from(keyHashOf(name, publicKey)).toString('hex');
  return `${name}+${hash}+${base64(Uint8Array.of(ED25519, ...publicKey))}`;
}

/** A verifier key text read back; null when it is malformed or its hash does not match its name and key. */
export function parseVerifierKey(text: string): VerifierKey | null {
  // The name has no '+'; the base64 key may.
  const parts = /^([^\s+]+)\+([0-9a-f]{8})\+(\S+)$/.exec(text);
  if (!parts) return null;
  const [, name, hash, key] = parts as unknown as [string, string, string, string];
  const raw = fromBase64(key);
  if (raw?.length !== 33 || raw[0] !== ED25519) return null;
  const publicKey = raw.subarray(1);
  const keyHash = keyHashOf(name, publicKey);
  return Buffer.from(keyHash).toString('hex') === hash ? { name, keyHash, publicKey } : null;
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
    (s) => `${SIGNATURE_PREFIX}${s.keyName} ${base64(Uint8Array.of(...s.keyHash, ...s.signature))}\n`,
  );
  return `${body}\n${lines.join('')}`;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Whether `signature` is the key's valid Ed25519 signature of `body`. */
export function verifyNoteSignature(body: string, signature: NoteSignature, key: VerifierKey): boolean {
  if (signature.keyName !== key.name || !sameBytes(signature.keyHash, key.keyHash)) return false;
  if (signature.signature.length !== 64) return false;
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.publicKey).toString('base64url') },
    format: 'jwk',
  });
  return verify(null, Buffer.from(body, 'utf8'), publicKey, signature.signature);
}

export type CheckpointCheck =
  { ok: true; checkpoint: Checkpoint; keyName: string } | { ok: false; reason: string };

/**
 * A signed checkpoint checked: well-formed, and signed by one of `keys`. As Go's golang.org/x/mod/sumdb/note
 * has it, a signature by a key not given is ignored, and one by a key given that does not verify fails the
 * whole note. The reason says what failed.
 */
export function verifyCheckpoint(note: string, keys: readonly VerifierKey[]): CheckpointCheck {
  const parsed = parseSignedNote(note);
  if (!parsed) return { ok: false, reason: 'not a signed note' };
  const checkpoint = parseCheckpoint(parsed.body);
  if (!checkpoint) return { ok: false, reason: 'not a checkpoint' };
  let signer: string | null = null;
  for (const signature of parsed.signatures) {
    const key = keys.find((k) => k.name === signature.keyName && sameBytes(k.keyHash, signature.keyHash));
    if (!key) continue;
    if (!verifyNoteSignature(parsed.body, signature, key)) return { ok: false, reason: 'bad signature' };
    signer ??= key.name;
  }
  return signer ? { ok: true, checkpoint, keyName: signer } : { ok: false, reason: 'signed by no known key' };
}
