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
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const encoder = new TextEncoder();

/**
 * The canonical bytes of an event (docs/integrity.md "Leaves"): the version byte, then each field in
 * `LEAF_FIELDS` order, text as its UTF-8 byte length (4 bytes, big-endian) followed by those bytes, the
 * timestamp as a signed 8-byte big-endian integer, a flag as one byte 0 or 1. Throws a TypeError for a value
 * of the wrong kind.
 */
export function encodeLeaf(event: LeafEvent): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(LEAF_ENCODING_VERSION)];
  for (const { name, kind } of LEAF_FIELDS) {
    const value: unknown = event[name];
    if (kind === 'text') {
      if (typeof value !== 'string' || LONE_SURROGATE.test(value))
        throw new TypeError(`${name}: not well-formed text`);
      const bytes = encoder.encode(value);
      const length = new Uint8Array(4);
      new DataView(length.buffer).setUint32(0, bytes.length);
      parts.push(length, bytes);
    } else if (kind === 'millis') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        throw new TypeError(`${name}: not an integer number of milliseconds`);
      const bytes = new Uint8Array(8);
      new DataView(bytes.buffer).setBigInt64(0, BigInt(value));
      parts.push(bytes);
    } else {
      if (typeof value !== 'boolean') throw new TypeError(`${name}: not a boolean`);
      parts.push(Uint8Array.of(value ? 1 : 0));
    }
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
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
