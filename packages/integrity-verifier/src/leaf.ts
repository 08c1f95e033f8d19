import { Buffer } from 'node:buffer';
import { LEAF_PREFIX, sha256 } from './merkle.js';

/**
 * The fields of an audit event its tenant's tree commits to: every field the API returns for it, with the
 * timestamp in epoch milliseconds, and `fields_accessed` and `details` as the JSON text the API returns.
 */
export interface LeafEvent {
  event_id: string;
  timestamp: number;
  tenant_id: string;
  action: string;
  user_id: string;
  user_role: string;
  resource_type: string;
  resource_id: string;
  fields_accessed: string;
  phi_involved: boolean;
  source_ip: string;
  user_agent: string;
  justification: string;
  success: boolean;
  details: string;
}

/** The encoding's version, its first byte: a later encoding gets another. */
export const LEAF_ENCODING_VERSION = 1;

type Field = { name: keyof LeafEvent; kind: 'text' | 'millis' | 'flag' };

/** The fields in the order they are encoded (the event schema's order). */
export const LEAF_FIELDS: readonly Field[] = [
  { name: 'event_id', kind: 'text' },
  { name: 'timestamp', kind: 'millis' },
  { name: 'tenant_id', kind: 'text' },
  { name: 'action', kind: 'text' },
  { name: 'user_id', kind: 'text' },
  { name: 'user_role', kind: 'text' },
  { name: 'resource_type', kind: 'text' },
  { name: 'resource_id', kind: 'text' },
  { name: 'fields_accessed', kind: 'text' },
  { name: 'phi_involved', kind: 'flag' },
  { name: 'source_ip', kind: 'text' },
  { name: 'user_agent', kind: 'text' },
  { name: 'justification', kind: 'text' },
  { name: 'success', kind: 'flag' },
  { name: 'details', kind: 'text' },
];

// A UTF-16 surrogate without its partner: text that has no UTF-8 encoding (the service refuses it at ingest).
// String#isWellFormed says so natively where it exists (Node 20 and later), far faster than the pattern.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => (text as string & { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);

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

/** Writes a safe integer of milliseconds at `at` as the encoding's timestamp; returns where it ends. */
export function writeMillis(out: Uint8Array, value: number, at: number): number {
  // Two's complement in two 32-bit halves: a BigInt per event costs more than the rest of the field. Written byte
  // by byte into a Uint8Array, so that the package's declarations need no Node types (an auditor's project may
  // have none).
  const high = Math.floor(value / 2 ** 32);
  const low = value - high * 2 ** 32;
  out[at] = high >>> 24;
  out[at + 1] = high >>> 16;
  out[at + 2] = high >>> 8;
  out[at + 3] = high;
  out[at + 4] = low >>> 24;
  out[at + 5] = low >>> 16;
  out[at + 6] = low >>> 8;
  out[at + 7] = low;
  return at + 8;
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
 * for every event (leaf.unit.test.ts holds it to LEAF_FIELDS).
 */
function encodeIntoScratch(e: LeafEvent): number {
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
  return text('details', e.details, at);
}

/**
 * The canonical bytes of an event (docs/integrity.md "Leaves"): the version byte, then each field in
 * `LEAF_FIELDS` order, text as its UTF-8 byte length (4 bytes, big-endian) followed by those bytes, the
 * timestamp as a signed 8-byte big-endian integer, a flag as one byte 0 or 1. Throws a TypeError for a value
 * of the wrong kind.
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

// The API's timestamps: UTC, milliseconds, `+00:00` or `Z` (docs/api.md).
const API_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:\+00:00|Z)$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
// The Gregorian calendar repeats every 400 years, to the day: Date.UTC reads years 0 to 99 as 1900 to 1999, so
// a date is read 400 years later and moved back.
const FOUR_CENTURIES = 146_097 * 86_400_000;

/** The number written in `text`'s digits from `at` to `end`, which the pattern has checked are digits. */
function digits(text: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

function monthDays(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!;
}

/**
 * An API timestamp in epoch milliseconds, or null for text the API does not write: read exactly, so that a date
 * that does not exist (April 31, February 29 of a common year, 24:00) is refused rather than rolled over into
 * another. Read from its digits: a verifier reads two or three per event, and a Date to check them against
 * costs more than the rest of the event's check.
 */
export function apiMillis(text: unknown): number | null {
  if (typeof text !== 'string' || !API_TIME.test(text)) return null;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (month < 1 || month > 12 || day < 1 || day > monthDays(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = digits(text, 20, 23);
  return Date.UTC(year + 400, month - 1, day, hour, minute, second, millis) - FOUR_CENTURIES;
}

const textOf = (name: string, value: unknown): string => {
  if (typeof value !== 'string') throw new TypeError(`${name}: missing or not a string`);
  return value;
};
const flagOf = (name: string, value: unknown): boolean => {
  if (typeof value !== 'boolean') throw new TypeError(`${name}: missing or not a boolean`);
  return value;
};

/**
 * An event as the API, the export and the export jobs' files give it (a parsed JSON object), as a LeafEvent.
 * Throws a TypeError naming the first field that is missing or not as the API writes it. Made whole, in
 * LEAF_FIELDS' order (every event then has the one shape, which the encoding reads fastest), and spelled out field
 * by field: half the cost of a loop over LEAF_FIELDS.
 */
export function leafEventOf(row: Record<string, unknown>): LeafEvent {
  const time = apiMillis(row.timestamp);
  if (time === null) throw new TypeError('timestamp: not an API timestamp');
  return {
    event_id: textOf('event_id', row.event_id),
    timestamp: time,
    tenant_id: textOf('tenant_id', row.tenant_id),
    action: textOf('action', row.action),
    user_id: textOf('user_id', row.user_id),
    user_role: textOf('user_role', row.user_role),
    resource_type: textOf('resource_type', row.resource_type),
    resource_id: textOf('resource_id', row.resource_id),
    fields_accessed: textOf('fields_accessed', row.fields_accessed),
    phi_involved: flagOf('phi_involved', row.phi_involved),
    source_ip: textOf('source_ip', row.source_ip),
    user_agent: textOf('user_agent', row.user_agent),
    justification: textOf('justification', row.justification),
    success: flagOf('success', row.success),
    details: textOf('details', row.details),
  };
}
