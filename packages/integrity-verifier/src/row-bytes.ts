import { Buffer } from 'node:buffer';
import {
  apiMillis,
  LEAF_ENCODING_VERSION,
  LEAF_ENCODING_VERSION_2,
  LEAF_FIELDS,
  LEAF_V2_FIELDS,
  writeMillis,
} from './leaf.js';
import {
  COMMITMENT_BYTES,
  COMMITMENT_TAG,
  COMMITTED_FIELDS,
  LEAF_ENCODING_VERSION_3,
  SALT_BYTES,
  type CommittedField,
} from './leaf-event.js';
import { LEAF_PREFIX, sha256 } from './merkle.js';
import type { RowLeaf } from './row-leaf.js';

// The leaf of an export row read straight from its UTF-8 bytes, for the rows as the API writes them: a JSON object
// on one line, without whitespace, whose values are strings and flags. JSON.parse made a string of each field and
// an object of each row that the leaf encoding then wrote back into bytes; here a string's bytes between its
// quotes are already its UTF-8, unescaped as they are copied (docs/integrity.md "Offline verification"). Anything
// else (whitespace, numbers, null, nesting, a field twice, a `\u` escape of half a character, a time not as the API
// writes it, salts not as the API writes them, erased fields) is left to JSON.parse and rowLeaf, which give the leaf
// or the problem.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CR = 0x0d;
// The fields a row may have: LEAF_FIELDS, which it must, then LEAF_V2_FIELDS, which a row written before them has
// not got.
const FIELDS = [...LEAF_FIELDS, ...LEAF_V2_FIELDS];
// A version 3 row's salts (docs/integrity.md "Version 3"), found as a field of its own after FIELDS.
const SALTS = FIELDS.length;
const SALTS_BYTES = SALT_BYTES * COMMITTED_FIELDS.length;
const KEYS = [...FIELDS.map((f) => Buffer.from(f.name, 'latin1')), Buffer.from('leaf_salts', 'latin1')];
// Each field's place among the committed fields, or -1.
const SLOTS = FIELDS.map((f) => COMMITTED_FIELDS.indexOf(f.name as CommittedField));
const TEXT = FIELDS.map((f) => f.kind === 'text');
const TIMESTAMP = FIELDS.findIndex((f) => f.kind === 'millis');
const EVENT_ID = FIELDS.findIndex((f) => f.name === 'event_id');
const REQUIRED = (1 << LEAF_FIELDS.length) - 1;
// The order the API writes an event's fields in (docs/api.md): each key is first compared with the one expected.
const API_ORDER = [
  'event_id',
  'timestamp',
  'action',
  'user_id',
  'user_role',
  'resource_type',
  'resource_id',
  'fields_accessed',
  'phi_involved',
  'tenant_id',
  'source_ip',
  'user_agent',
  'justification',
  'success',
  'details',
  'patient_id',
  'purpose_of_use',
  'recipient',
  'disclosure',
  'accounting_exclusion',
  'leaf_salts',
].map((name) => KEYS.findIndex((key) => key.toString('latin1') === name));
// What each escape's second character stands for; 0 for `u` (four hex digits follow) and for what JSON refuses.
const UNESCAPED = new Uint8Array(128);
for (const [c, b] of Object.entries({ '"': 0x22, '\\': 0x5c, '/': 0x2f, b: 8, f: 12, n: 10, r: 13, t: 9 }))
  UNESCAPED[c.charCodeAt(0)] = b;
const HEX = new Int8Array(256).fill(-1);
for (const [i, c] of [...'0123456789abcdef'].entries())
  HEX[c.charCodeAt(0)] = HEX[c.toUpperCase().charCodeAt(0)] = i;

// Each field's value as found in the row: its bytes from `starts` to `ends` (a string's between its quotes), and
// its kind.
const starts = new Int32Array(KEYS.length);
const ends = new Int32Array(KEYS.length);
const kinds = new Uint8Array(KEYS.length);
const [FALSE_FLAG, TRUE_FLAG, STRING, ESCAPED_STRING] = [0, 1, 2, 3];
let scratch = Buffer.allocUnsafeSlow(4096);

/** The field whose key is the bytes from `at` to `end`; -1 for any other key. */
function fieldOf(b: Buffer, at: number, end: number): number {
  for (let f = 0; f < KEYS.length; f++) if (sameKey(b, at, end, KEYS[f]!)) return f;
  return -1;
}

function sameKey(b: Buffer, at: number, end: number, key: Buffer): boolean {
  if (end - at !== key.length) return false;
  for (let i = 0; i < key.length; i++) if (b[at + i] !== key[i]) return false;
  return true;
}

/** Whether the bytes from `at`, before `end`, are `"key":` for the key of field `f` (which needs no escape). */
function isKeyOf(b: Buffer, at: number, end: number, f: number): boolean {
  const key = KEYS[f]!;
  const close = at + 1 + key.length;
  return close + 1 < end && sameKey(b, at + 1, close, key) && b[close] === QUOTE && b[close + 1] === 0x3a;
}

// Whether the last string stringEnd read holds an escape.
let escapes = false;

/** Where the string whose first byte is at `at` ends (its closing quote), or -1 where JSON.parse would differ. */
function stringEnd(b: Buffer, at: number, end: number): number {
  escapes = false;
  for (let p = at; p < end;) {
    const c = b[p]!;
    if (c === QUOTE) return p;
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) p += 1;
    else {
      escapes = true;
      const e = b[p + 1]!;
      if (e === 0x75) {
        if (p + 6 > end || (HEX[b[p + 2]!]! | HEX[b[p + 3]!]! | HEX[b[p + 4]!]! | HEX[b[p + 5]!]!) < 0)
          return -1;
        p += 6;
      } else if (e < 128 && UNESCAPED[e] !== 0) p += 2;
      else return -1;
    }
  }
  return -1;
}

/** Whether the bytes from `at`, before `end`, are `word` (true, false). */
function isWord(b: Buffer, at: number, end: number, word: Buffer): boolean {
  if (at + word.length > end) return false;
  for (let i = 0; i < word.length; i++) if (b[at + i] !== word[i]) return false;
  return true;
}
// A row's erased fields (docs/integrity.md "Version 3"): their commitments stand for values this reader would read.
const ERASED_KEY = Buffer.from('erased', 'latin1');
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');

/**
 * Finds each field's value in the row from `at` to `end` (starts, ends, kinds); returns the fields found, a bit
 * each, or -1 where the row is not one this reader takes.
 */
function scan(b: Buffer, at: number, end: number): number {
  if (b[at] !== 0x7b || b[end - 1] !== 0x7d) return -1;
  let seen = 0;
  let p = at + 1;
  for (let n = 0; ; n++) {
    if (b[p] !== QUOTE) return -1;
    // The key the API writes n-th, compared in place; any other is read as a string, then looked up.
    let f = API_ORDER[n] ?? -1;
    if (f !== -1 && isKeyOf(b, p, end, f)) p += KEYS[f]!.length + 3;
    else {
      const keyEnd = stringEnd(b, p + 1, end);
      if (keyEnd === -1 || escapes || b[keyEnd + 1] !== 0x3a) return -1;
      f = fieldOf(b, p + 1, keyEnd);
      if (f === -1 && sameKey(b, p + 1, keyEnd, ERASED_KEY)) return -1;
      p = keyEnd + 2;
    }
    if (f !== -1) {
      if ((seen & (1 << f)) !== 0) return -1;
      seen |= 1 << f;
    }
    let kind = STRING;
    let valueEnd: number;
    if (b[p] === QUOTE) {
      p += 1;
      valueEnd = stringEnd(b, p, end);
      if (valueEnd === -1) return -1;
      if (escapes) kind = ESCAPED_STRING;
    } else if (isWord(b, p, end, TRUE)) {
      kind = TRUE_FLAG;
      valueEnd = p + 4;
    } else if (isWord(b, p, end, FALSE)) {
      kind = FALSE_FLAG;
      valueEnd = p + 5;
    } else return -1;
    if (f !== -1) {
      starts[f] = p;
      ends[f] = valueEnd;
      kinds[f] = kind;
    }
    p = kind >= STRING ? valueEnd + 1 : valueEnd;
    if (b[p] === 0x7d) return p === end - 1 && (seen & REQUIRED) === REQUIRED ? seen : -1;
    if (b[p] !== 0x2c) return -1;
    p += 1;
  }
}

/** Writes the UTF-8 of an escaped string's bytes from `at` to `end` at `out`; returns where it ends, -1 for half a character. */
function unescape(b: Buffer, at: number, end: number, out: number): number {
  for (let p = at; p < end;) {
    const c = b[p]!;
    if (c !== BACKSLASH) {
      scratch[out++] = c;
      p += 1;
      continue;
    }
    const e = b[p + 1]!;
    if (e !== 0x75) {
      scratch[out++] = UNESCAPED[e]!;
      p += 2;
      continue;
    }
    let unit = hex4(b, p + 2);
    p += 6;
    if (unit >= 0xdc00 && unit <= 0xdfff) return -1;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = b[p] === BACKSLASH && b[p + 1] === 0x75 && p + 6 <= end ? hex4(b, p + 2) : -1;
      if (low < 0xdc00 || low > 0xdfff) return -1;
      unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      p += 6;
    }
    out = utf8(unit, out);
  }
  return out;
}

const hex4 = (b: Buffer, at: number) =>
  (HEX[b[at]!]! << 12) | (HEX[b[at + 1]!]! << 8) | (HEX[b[at + 2]!]! << 4) | HEX[b[at + 3]!]!;

/** Writes a code point's UTF-8 at `out`; returns where it ends. */
function utf8(cp: number, out: number): number {
  if (cp < 0x80) scratch[out++] = cp;
  else if (cp < 0x800) {
    scratch[out++] = 0xc0 | (cp >> 6);
    scratch[out++] = 0x80 | (cp & 0x3f);
  } else if (cp < 0x10000) {
    scratch[out++] = 0xe0 | (cp >> 12);
    scratch[out++] = 0x80 | ((cp >> 6) & 0x3f);
    scratch[out++] = 0x80 | (cp & 0x3f);
  } else {
    scratch[out++] = 0xf0 | (cp >> 18);
    scratch[out++] = 0x80 | ((cp >> 12) & 0x3f);
    scratch[out++] = 0x80 | ((cp >> 6) & 0x3f);
    scratch[out++] = 0x80 | (cp & 0x3f);
  }
  return out;
}

/** Writes a text field (its length, 4 bytes big-endian, then its UTF-8) at `out`; returns where it ends, or -1. */
function text(b: Buffer, f: number, out: number): number {
  const [at, end] = [starts[f]!, ends[f]!];
  let written: number;
  if (kinds[f] === ESCAPED_STRING) {
    const stop = unescape(b, at, end, out + 4);
    if (stop === -1) return -1;
    written = stop - out - 4;
  } else {
    written = end - at;
    if (written > 32) b.copy(scratch, out + 4, at, end);
    else for (let i = 0; i < written; i++) scratch[out + 4 + i] = b[at + i]!;
  }
  scratch.writeUInt32BE(written, out);
  return out + 4 + written;
}

/**
 * Writes a committed field (field `f`, whose salt is `salt`) at `out` as its commitment: SHA-256(COMMITMENT_TAG ||
 * its number || salt || its UTF-8). The text is first written 14 bytes on, so that its bytes follow the 18 of the
 * tag, number and salt written over its length. Returns where the commitment ends, or -1.
 */
function commitment(b: Buffer, f: number, salt: Buffer, out: number): number {
  const stop = text(b, f, out + 14);
  if (stop === -1) return -1;
  scratch[out] = COMMITMENT_TAG;
  scratch[out + 1] = f + 1;
  salt.copy(scratch, out + 2);
  scratch.set(sha256(scratch.subarray(out, stop)), out);
  return out + COMMITMENT_BYTES;
}

/** The salts of the row's `leaf_salts`, or null where it is not the one base64 text of SALTS_BYTES bytes. */
function saltsOf(b: Buffer): Buffer | null {
  if (kinds[SALTS] !== STRING) return null;
  const text = b.toString('latin1', starts[SALTS], ends[SALTS]);
  const salts = Buffer.from(text, 'base64');
  return salts.length === SALTS_BYTES && salts.toString('base64') === text ? salts : null;
}

/** Gives each field of LEAF_V2_FIELDS the row has not got (not in `seen`) its default: empty text, or false. */
function defaultAbsent(seen: number): void {
  for (let f = LEAF_FIELDS.length; f < FIELDS.length; f++)
    if ((seen & (1 << f)) === 0) {
      starts[f] = ends[f] = 0;
      kinds[f] = TEXT[f] ? STRING : FALSE_FLAG;
    }
}

/** Whether a field of LEAF_V2_FIELDS is not at its default: text of any byte (an escape is one), or true. */
function isVersion2Row(): boolean {
  for (let f = LEAF_FIELDS.length; f < FIELDS.length; f++)
    if (TEXT[f] ? ends[f]! > starts[f]! : kinds[f] === TRUE_FLAG) return true;
  return false;
}

/**
 * The leaf of the row whose bytes are from `at` to `end` (a line of an export, with or without its carriage
 * return), which must be UTF-8; undefined for a row to read with JSON.parse and rowLeaf instead.
 */
export function rowLeafOfBytes(b: Buffer, at: number, end: number): RowLeaf | undefined {
  if (end > at && b[end - 1] === CR) end -= 1;
  const seen = scan(b, at, end);
  if (seen === -1) return undefined;
  defaultAbsent(seen);
  for (let f = 0; f < FIELDS.length; f++)
    if (kinds[f]! >= STRING !== (f === TIMESTAMP || TEXT[f]!)) return undefined;
  if (kinds[TIMESTAMP] !== STRING || kinds[EVENT_ID] !== STRING) return undefined;
  const ts = apiMillis(b.toString('latin1', starts[TIMESTAMP], ends[TIMESTAMP]));
  if (ts === null) return undefined;
  // An escape writes fewer bytes than it takes; the rest of the encoding, a field the row has not got included, is
  // at most 4 bytes a field more, or a commitment's 32 bytes and its 18 of input ahead of the text.
  if (scratch.length < end - at + 1024) scratch = Buffer.allocUnsafeSlow(2 * (end - at + 1024));
  const salts = (seen & (1 << SALTS)) === 0 ? undefined : saltsOf(b);
  if (salts === null) return undefined;
  const version2 = isVersion2Row();
  const fields = salts || version2 ? FIELDS.length : LEAF_FIELDS.length;
  scratch[0] = LEAF_PREFIX;
  scratch[1] = salts ? LEAF_ENCODING_VERSION_3 : version2 ? LEAF_ENCODING_VERSION_2 : LEAF_ENCODING_VERSION;
  let out = 2;
  for (let f = 0; f < fields && out !== -1; f++) {
    const slot = salts ? SLOTS[f]! : -1;
    if (f === TIMESTAMP) out = writeMillis(scratch, ts, out);
    else if (slot !== -1)
      out = commitment(b, f, salts!.subarray(slot * SALT_BYTES, (slot + 1) * SALT_BYTES), out);
    else if (TEXT[f]) out = text(b, f, out);
    else scratch[out++] = kinds[f]!;
  }
  if (out === -1) return undefined;
  return {
    id: b.toString('utf8', starts[EVENT_ID], ends[EVENT_ID]),
    ts,
    hash: sha256(scratch.subarray(0, out)),
  };
}
