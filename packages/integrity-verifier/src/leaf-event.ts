// The event a leaf commits to, read from the API's answers: pure, for the Node entry's encoding and the web
// entry's alike (leaf.ts, web-leaf.ts).
import { fromBase64, toBase64 } from './bytes.js';

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
  // The fields of LEAF_V2_FIELDS: optional, as events and files written before them do not have them; an event
  // without one has its default ("" for text, false for a flag).
  patient_id?: string;
  purpose_of_use?: string;
  recipient?: string;
  disclosure?: boolean;
  accounting_exclusion?: string;
  /**
   * A version 3 event's: the salts of its committed fields, and the commitments of those erased (docs/integrity.md
   * "Version 3"). An erased field's value is not read.
   */
  commitments?: LeafCommitments | undefined;
}

/** The fields a version 3 leaf commits to through salted hashes rather than their values, in their order. */
export const COMMITTED_FIELDS = [
  'user_id',
  'resource_id',
  'source_ip',
  'user_agent',
  'justification',
  'details',
  'patient_id',
  'recipient',
] as const;
export type CommittedField = (typeof COMMITTED_FIELDS)[number];

/** A salt's bytes, and a commitment's (a SHA-256). */
export const SALT_BYTES = 16;
export const COMMITMENT_BYTES = 32;
/** The first byte of a commitment's input: apart from RFC 9162's leaf (0x00) and node (0x01) prefixes. */
export const COMMITMENT_TAG = 0x10;

export interface LeafCommitments {
  /** SALT_BYTES per field of COMMITTED_FIELDS, in their order; an erased field's are not read. */
  salts: Uint8Array;
  /** The commitment of each erased field, as the event's row gives it. */
  erased: ReadonlyMap<CommittedField, Uint8Array>;
}

/**
 * The encoding's version, its first byte, for an event whose LEAF_V2_FIELDS are all at their defaults: every
 * event written before those fields existed keeps its leaf.
 */
export const LEAF_ENCODING_VERSION = 1;
/** The version byte of any other event, whose encoding has LEAF_V2_FIELDS after LEAF_FIELDS. */
export const LEAF_ENCODING_VERSION_2 = 2;
/** The version byte of an event with salts: every field, the committed ones through their commitments. */
export const LEAF_ENCODING_VERSION_3 = 3;

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

/** The fields version 2 encodes after LEAF_FIELDS, in this order (appended to the event schema after `details`). */
export const LEAF_V2_FIELDS: readonly Field[] = [
  { name: 'patient_id', kind: 'text' },
  { name: 'purpose_of_use', kind: 'text' },
  { name: 'recipient', kind: 'text' },
  { name: 'disclosure', kind: 'flag' },
  { name: 'accounting_exclusion', kind: 'text' },
];

/** What a field of LEAF_V2_FIELDS is for an event that does not have it. */
export const defaultOf = (kind: Field['kind']): string | boolean => (kind === 'flag' ? false : '');

/** An optional field's value, or `fallback` when the event has not got it (a null is a value, which is refused). */
export const orDefault = <T>(value: T | undefined, fallback: T): T =>
  value === undefined ? fallback : value;

const isSet = (value: unknown, fallback: string | boolean) => value !== undefined && value !== fallback;

/**
 * Whether the event is encoded as version 2: one of LEAF_V2_FIELDS is there with anything but its default. A value
 * of the wrong kind counts, so that the encoding of version 2 refuses it. Spelled out field by field: it is asked of
 * every event the projector appends and a verifier checks (leaf.unit.test.ts holds it to LEAF_V2_FIELDS).
 */
export function isVersion2(e: LeafEvent): boolean {
  return (
    isSet(e.patient_id, '') ||
    isSet(e.purpose_of_use, '') ||
    isSet(e.recipient, '') ||
    isSet(e.disclosure, false) ||
    isSet(e.accounting_exclusion, '')
  );
}

// A UTF-16 surrogate without its partner: text that has no UTF-8 encoding (the service refuses it at ingest).
// String#isWellFormed says so natively where it exists (Node 20 and later), far faster than the pattern.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const wellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => (text as string & { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);

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
// A field of LEAF_V2_FIELDS: absent from an answer or file written before it, it has its default.
const laterTextOf = (name: string, value: unknown): string => {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new TypeError(`${name}: not a string`);
  return value;
};
const laterFlagOf = (name: string, value: unknown): boolean => {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new TypeError(`${name}: not a boolean`);
  return value;
};

const COMMITTED: ReadonlySet<string> = new Set(COMMITTED_FIELDS);

/**
 * The bytes of base64 text as the API writes it, `size` of them; null for anything else. Only the one text of
 * those bytes is taken: base64 whose last character carries bits the bytes do not have would be other text with
 * the same leaf.
 */
function exactBase64(text: unknown, size: number): Uint8Array | null {
  const bytes = typeof text === 'string' ? fromBase64(text) : null;
  return bytes?.length === size && toBase64(bytes) === text ? bytes : null;
}

/**
 * A version 3 row's salts and erased fields' commitments (docs/integrity.md "Version 3"): `leaf_salts`, the base64
 * of SALT_BYTES per committed field, and `erased`, an object (absent: none) naming each erased field with the
 * base64 of its commitment. An erased field must be there, as null, and its salt zeros: the salt goes with the
 * value, and a salt kept beside a commitment would let anyone try values against it.
 */
function commitmentsOf(row: Record<string, unknown>): LeafCommitments {
  const salts = exactBase64(row.leaf_salts, SALT_BYTES * COMMITTED_FIELDS.length);
  if (salts === null)
    throw new TypeError(`leaf_salts: not the base64 of ${SALT_BYTES * COMMITTED_FIELDS.length} bytes`);
  const given = row.erased === undefined ? {} : row.erased;
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new TypeError('erased: not an object');
  const erased = new Map<CommittedField, Uint8Array>();
  for (const [name, text] of Object.entries(given)) {
    if (!COMMITTED.has(name)) throw new TypeError(`erased: ${name} is not a field a leaf commits to`);
    const commitment = exactBase64(text, COMMITMENT_BYTES);
    if (commitment === null)
      throw new TypeError(`erased: ${name}'s commitment is not the base64 of ${COMMITMENT_BYTES} bytes`);
    if (row[name] !== null) throw new TypeError(`${name}: erased, so null`);
    const slot = COMMITTED_FIELDS.indexOf(name as CommittedField) * SALT_BYTES;
    if (salts.subarray(slot, slot + SALT_BYTES).some((b) => b !== 0))
      throw new TypeError(`leaf_salts: ${name} is erased, so its salt is zeros`);
    erased.set(name as CommittedField, commitment);
  }
  return { salts, erased };
}

/**
 * An event as the API, the export and the export jobs' files give it (a parsed JSON object), as a LeafEvent.
 * Throws a TypeError naming the first field that is missing or not as the API writes it; a field of
 * LEAF_V2_FIELDS may be missing, and then has its default. A row with `leaf_salts` is of version 3
 * (commitmentsOf). Made whole, in the order of LEAF_FIELDS and LEAF_V2_FIELDS (every event then has the one shape,
 * which the encoding reads fastest), and spelled out field by field: half the cost of a loop over the fields.
 */
export function leafEventOf(row: Record<string, unknown>): LeafEvent {
  const time = apiMillis(row.timestamp);
  if (time === null) throw new TypeError('timestamp: not an API timestamp');
  // Erasures are of version 3 only: a row of version 1 or 2 that names some is not one the API writes.
  if (row.leaf_salts === undefined && row.erased !== undefined)
    throw new TypeError('erased: only a row with leaf_salts has erased fields');
  const commitments = row.leaf_salts === undefined ? undefined : commitmentsOf(row);
  // An erased field's value is not read: its commitment stands for it.
  const erased = commitments?.erased;
  const committed = (name: CommittedField, read: (name: string, value: unknown) => string) =>
    erased?.has(name) ? '' : read(name, row[name]);
  return {
    event_id: textOf('event_id', row.event_id),
    timestamp: time,
    tenant_id: textOf('tenant_id', row.tenant_id),
    action: textOf('action', row.action),
    user_id: committed('user_id', textOf),
    user_role: textOf('user_role', row.user_role),
    resource_type: textOf('resource_type', row.resource_type),
    resource_id: committed('resource_id', textOf),
    fields_accessed: textOf('fields_accessed', row.fields_accessed),
    phi_involved: flagOf('phi_involved', row.phi_involved),
    source_ip: committed('source_ip', textOf),
    user_agent: committed('user_agent', textOf),
    justification: committed('justification', textOf),
    success: flagOf('success', row.success),
    details: committed('details', textOf),
    patient_id: committed('patient_id', laterTextOf),
    purpose_of_use: laterTextOf('purpose_of_use', row.purpose_of_use),
    recipient: committed('recipient', laterTextOf),
    disclosure: laterFlagOf('disclosure', row.disclosure),
    accounting_exclusion: laterTextOf('accounting_exclusion', row.accounting_exclusion),
    commitments,
  };
}
