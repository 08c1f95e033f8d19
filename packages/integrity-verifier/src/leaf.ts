import { Buffer } from 'node:buffer';
import {
  COMMITMENT_BYTES,
  COMMITMENT_TAG,
  COMMITTED_FIELDS,
  defaultOf,
  isVersion2,
  LEAF_ENCODING_VERSION,
  LEAF_ENCODING_VERSION_2,
  LEAF_ENCODING_VERSION_3,
  LEAF_FIELDS,
  LEAF_V2_FIELDS,
  orDefault,
  SALT_BYTES,
  wellFormed,
  writeMillis,
  type CommittedField,
  type LeafCommitments,
  type LeafEvent,
} from './leaf-event.js';
import { LEAF_PREFIX, sha256 } from './merkle.js';

export {
  apiMillis,
  COMMITTED_FIELDS,
  LEAF_ENCODING_VERSION,
  LEAF_ENCODING_VERSION_2,
  LEAF_ENCODING_VERSION_3,
  LEAF_FIELDS,
  LEAF_V2_FIELDS,
  leafEventOf,
  writeMillis,
  type CommittedField,
  type LeafCommitments,
  type LeafEvent,
} from './leaf-event.js';

// Up to this many UTF-16 units, text that is all ASCII is copied unit by unit: for the short fields of an event
// that is cheaper than a call into Node's UTF-8 encoder, gives the same bytes, and needs no check of being
// well-formed (ASCII always is).
const SHORT_TEXT = 64;

// Every encoding is written into this one buffer, grown when an event needs more: allocating a buffer per event
// cost more than the encoding itself. Its first byte is left for the leaf hash's prefix, so that the hash is taken
// in place (leafHashOf). Nothing runs between the writing and the copy or hash that reads it.
let scratch = Buffer.allocUnsafeSlow(4096);

/** `scratch` with room for `more` bytes from `at`, grown if need be with the `at` bytes before kept. */
function room(at: number, more: number): Buffer {
  if (at + more > scratch.length) {
    const grown = Buffer.allocUnsafeSlow((at + more) * 2);
    scratch.copy(grown, 0, 0, at);
    scratch = grown;
  }
  return scratch;
}

/** Writes `text`'s bytes at `at` if it is short and all ASCII; returns how many, or -1 when it is not. */
function writeShortAscii(out: Buffer, text: string, at: number): number {
  if (text.length > SHORT_TEXT) return -1;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) return -1;
    out[at + i] = unit;
  }
  return text.length;
}

/** A text field at `at`: its UTF-8 byte length (4 bytes, big-endian), then those bytes. Returns where it ends. */
function text(name: string, value: unknown, at: number): number {
  if (typeof value !== 'string') throw new TypeError(`${name}: not well-formed text`);
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const out = room(at, 4 + value.length * 3);
  let written = writeShortAscii(out, value, at + 4);
  if (written === -1) {
    if (!wellFormed(value)) throw new TypeError(`${name}: not well-formed text`);
    written = out.write(value, at + 4, 'utf8');
  }
  out[at] = written >>> 24;
  out[at + 1] = (written >>> 16) & 0xff;
  out[at + 2] = (written >>> 8) & 0xff;
  out[at + 3] = written & 0xff;
  return at + 4 + written;
}

/** The timestamp at `at`: a signed 8-byte big-endian integer. */
function millis(name: string, value: unknown, at: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new TypeError(`${name}: not an integer number of milliseconds`);
  return writeMillis(room(at, 8), value, at);
}

/** A flag at `at`: one byte, 0 or 1. */
function flag(name: string, value: unknown, at: number): number {
  if (typeof value !== 'boolean') throw new TypeError(`${name}: not a boolean`);
  room(at, 1)[at] = value ? 1 : 0;
  return at + 1;
}

/**
 * Writes the event's canonical bytes into `scratch` from byte 1; returns where they end. Spelled out field by
 * field in LEAF_FIELDS' order rather than looped over it: a quarter cheaper, which the projector and a verifier pay
 * for every event (leaf.unit.test.ts holds it to LEAF_FIELDS). Version 1, unless the event needs version 2.
 */
function encodeIntoScratch(e: LeafEvent): number {
  if (e.commitments !== undefined) return encodeVersion3(e, e.commitments);
  room(0, 2)[1] = LEAF_ENCODING_VERSION;
  let at = text('event_id', e.event_id, 2);
  at = millis('timestamp', e.timestamp, at);
  at = text('tenant_id', e.tenant_id, at);
  at = text('action', e.action, at);
  at = text('user_id', e.user_id, at);
  at = text('user_role', e.user_role, at);
  at = text('resource_type', e.resource_type, at);
  at = text('resource_id', e.resource_id, at);
  at = text('fields_accessed', e.fields_accessed, at);
  at = flag('phi_involved', e.phi_involved, at);
  at = text('source_ip', e.source_ip, at);
  at = text('user_agent', e.user_agent, at);
  at = text('justification', e.justification, at);
  at = flag('success', e.success, at);
  at = text('details', e.details, at);
  return isVersion2(e) ? appendVersion2(e, at) : at;
}

/**
 * Makes the encoding in `scratch` version 2: its version byte, and LEAF_V2_FIELDS written from `at`, each in its
 * order, at its default where the event does not have it. Returns where they end.
 */
function appendVersion2(e: LeafEvent, at: number): number {
  scratch[1] = LEAF_ENCODING_VERSION_2;
  at = text('patient_id', orDefault(e.patient_id, ''), at);
  at = text('purpose_of_use', orDefault(e.purpose_of_use, ''), at);
  at = text('recipient', orDefault(e.recipient, ''), at);
  at = flag('disclosure', orDefault(e.disclosure, false), at);
  return text('accounting_exclusion', orDefault(e.accounting_exclusion, ''), at);
}

// Version 3 encodes every field in this order; each committed one by its place among COMMITTED_FIELDS. A field of
// LEAF_V2_FIELDS (`later`) the event has not got has its default.
const ALL_FIELDS = [...LEAF_FIELDS, ...LEAF_V2_FIELDS].map((f, i) => ({
  ...f,
  number: i + 1,
  slot: (COMMITTED_FIELDS as readonly string[]).indexOf(f.name),
  later: i >= LEAF_FIELDS.length,
}));
const valueOf = (e: LeafEvent, field: (typeof ALL_FIELDS)[number]) =>
  field.later ? orDefault(e[field.name], defaultOf(field.kind)) : e[field.name];

// A commitment's input is written into this one buffer, grown when a value needs more: the projector and a verifier
// make eight per event, and joining a buffer of each part would allocate three more for each.
let commitInput = Buffer.allocUnsafeSlow(1024);
const COMMIT_HEAD = 2 + SALT_BYTES;

/** SHA-256(COMMITMENT_TAG || number || salt || value's UTF-8), made in commitInput. */
function commitmentOf(name: string, number: number, salt: Uint8Array, value: unknown): Uint8Array {
  if (typeof value !== 'string') throw new TypeError(`${name}: not well-formed text`);
  if (COMMIT_HEAD + value.length * 3 > commitInput.length)
    commitInput = Buffer.allocUnsafeSlow((COMMIT_HEAD + value.length * 3) * 2);
  commitInput[0] = COMMITMENT_TAG;
  commitInput[1] = number;
  commitInput.set(salt, 2);
  let written = writeShortAscii(commitInput, value, COMMIT_HEAD);
  if (written === -1) {
    if (!wellFormed(value)) throw new TypeError(`${name}: not well-formed text`);
    written = commitInput.write(value, COMMIT_HEAD, 'utf8');
  }
  return sha256(commitInput.subarray(0, COMMIT_HEAD + written));
}

/**
 * A committed field's 32 bytes at `at`: the erased field's commitment as given, or else
 * SHA-256(COMMITMENT_TAG || its number || its salt || its UTF-8). Returns where they end.
 */
function commitment(
  e: LeafEvent,
  c: LeafCommitments,
  field: (typeof ALL_FIELDS)[number],
  at: number,
): number {
  const name = field.name as CommittedField;
  let hash = c.erased.get(name);
  if (hash === undefined) {
    const salt = c.salts.subarray(field.slot * SALT_BYTES, (field.slot + 1) * SALT_BYTES);
    hash = commitmentOf(name, field.number, salt, valueOf(e, field));
  }
  if (hash.length !== COMMITMENT_BYTES)
    throw new TypeError(`${name}: a commitment is ${COMMITMENT_BYTES} bytes`);
  room(at, COMMITMENT_BYTES).set(hash, at);
  return at + COMMITMENT_BYTES;
}

/**
 * Writes a version 3 encoding into `scratch` from byte 1 (docs/integrity.md "Version 3"): every field in order,
 * the committed ones as their commitments, a field of LEAF_V2_FIELDS the event has not got at its default.
 */
function encodeVersion3(e: LeafEvent, c: LeafCommitments): number {
  if (c.salts.length !== SALT_BYTES * COMMITTED_FIELDS.length)
    throw new TypeError(`commitments: ${SALT_BYTES} bytes of salt per committed field`);
  room(0, 2)[1] = LEAF_ENCODING_VERSION_3;
  let at = 2;
  for (const field of ALL_FIELDS) {
    const { name, kind } = field;
    if (field.slot !== -1) at = commitment(e, c, field, at);
    else if (kind === 'millis') at = millis(name, e[name], at);
    else if (kind === 'flag') at = flag(name, valueOf(e, field), at);
    else at = text(name, valueOf(e, field), at);
  }
  return at;
}

/**
 * The canonical bytes of an event (docs/integrity.md "Leaves"): the version byte, then each field in
 * `LEAF_FIELDS` order, text as its UTF-8 byte length (4 bytes, big-endian) followed by those bytes, the
 * timestamp as a signed 8-byte big-endian integer, a flag as one byte 0 or 1. Version 1 while the event's
 * `LEAF_V2_FIELDS` are all at their defaults; else version 2, with those fields after the others; version 3 for an
 * event with commitments. Throws a TypeError for a value of the wrong kind.
 */
export function encodeLeaf(event: LeafEvent): Uint8Array {
  const end = encodeIntoScratch(event);
  return Buffer.from(scratch.subarray(1, end));
}

/**
 * The event's leaf hash in its tenant's tree: SHA-256(0x00 || encodeLeaf(event)), hashed where it is encoded: it
 * is done for every event the projector appends and every row a verifier checks.
 */
export function leafHashOf(event: LeafEvent): Uint8Array {
  const end = encodeIntoScratch(event);
  scratch[0] = LEAF_PREFIX;
  return sha256(scratch.subarray(0, end));
}
