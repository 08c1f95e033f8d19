import { hashLeaf } from './merkle.js';

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
const encoder = new TextEncoder();

/** Checks the event's fields' kinds, and returns the most bytes its encoding can take (UTF-8: 3 per UTF-16 unit). */
function encodedBound(event: LeafEvent): number {
  let bound = 1;
  for (const { name, kind } of LEAF_FIELDS) {
    const value: unknown = event[name];
    if (kind === 'text') {
      if (typeof value !== 'string' || !wellFormed(value))
        throw new TypeError(`${name}: not well-formed text`);
      bound += 4 + value.length * 3;
    } else if (kind === 'millis') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        throw new TypeError(`${name}: not an integer number of milliseconds`);
      bound += 8;
    } else {
      if (typeof value !== 'boolean') throw new TypeError(`${name}: not a boolean`);
      bound += 1;
    }
  }
  return bound;
}

/**
 * The canonical bytes of an event (docs/integrity.md "Leaves"): the version byte, then each field in
 * `LEAF_FIELDS` order, text as its UTF-8 byte length (4 bytes, big-endian) followed by those bytes, the
 * timestamp as a signed 8-byte big-endian integer, a flag as one byte 0 or 1. Throws a TypeError for a value
 * of the wrong kind. Written in one buffer: it is done for every event the notary appends and every row a
 * verifier checks.
 */
export function encodeLeaf(event: LeafEvent): Uint8Array {
  const out = new Uint8Array(encodedBound(event));
  const view = new DataView(out.buffer);
  out[0] = LEAF_ENCODING_VERSION;
  let at = 1;
  for (const { name, kind } of LEAF_FIELDS) {
    const value = event[name];
    if (kind === 'text') {
      const { written } = encoder.encodeInto(value as string, out.subarray(at + 4));
      view.setUint32(at, written);
      at += 4 + written;
    } else if (kind === 'millis') {
      view.setBigInt64(at, BigInt(value as number));
      at += 8;
    } else {
      out[at++] = value ? 1 : 0;
    }
  }
  return out.subarray(0, at);
}

/** The event's leaf hash in its tenant's tree: SHA-256(0x00 || encodeLeaf(event)). */
export function leafHashOf(event: LeafEvent): Uint8Array {
  return hashLeaf(encodeLeaf(event));
}

// The API's timestamps: UTC, milliseconds, `+00:00` or `Z` (docs/api.md).
const API_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:\+00:00|Z)$/;

/**
 * An API timestamp in epoch milliseconds, or null for text the API does not write: read exactly, so that a date
 * that does not exist (April 31, 24:00) is refused rather than rolled over into another.
 */
export function apiMillis(text: unknown): number | null {
  if (typeof text !== 'string' || !API_TIME.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && new Date(ms).toISOString() === text.replace('+00:00', 'Z') ? ms : null;
}

/**
 * An event as the API, the export and the export jobs' NDJSON give it (a parsed JSON object), as a LeafEvent.
 * Throws a TypeError naming the first field that is missing or not as the API writes it.
 */
export function leafEventOf(row: Record<string, unknown>): LeafEvent {
  const time = apiMillis(row.timestamp);
  if (time === null) throw new TypeError('timestamp: not an API timestamp');
  const event: Record<string, unknown> = {};
  for (const { name, kind } of LEAF_FIELDS) {
    const value = name === 'timestamp' ? time : row[name];
    const expected = kind === 'flag' ? 'boolean' : kind === 'millis' ? 'number' : 'string';
    if (typeof value !== expected) throw new TypeError(`${name}: missing or not a ${expected}`);
    event[name] = value;
  }
  return event as unknown as LeafEvent;
}
