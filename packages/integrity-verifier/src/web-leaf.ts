// The leaf encoding (docs/integrity.md "Leaves") with the Web's UTF-8 encoder, for the web entry: leaf.ts writes it
// into Node Buffers, faster for the millions of events a trail has, but not in a browser.
import {
  defaultOf,
  isVersion2,
  LEAF_ENCODING_VERSION,
  LEAF_ENCODING_VERSION_2,
  LEAF_FIELDS,
  LEAF_V2_FIELDS,
  orDefault,
  wellFormed,
  writeMillis,
  type LeafEvent,
} from './leaf-event.js';
import { hashLeaf } from './web-crypto.js';

const utf8 = new TextEncoder();

/** One field's bytes; a TypeError worded as leaf.ts words it for a value of the wrong kind. */
function fieldBytes(name: string, kind: 'text' | 'millis' | 'flag', value: unknown): Uint8Array {
  if (kind === 'flag') {
    if (typeof value !== 'boolean') throw new TypeError(`${name}: not a boolean`);
    return Uint8Array.of(value ? 1 : 0);
  }
  if (kind === 'millis') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value))
      throw new TypeError(`${name}: not an integer number of milliseconds`);
    const out = new Uint8Array(8);
    writeMillis(out, value, 0);
    return out;
  }
  // TextEncoder writes a lone surrogate as U+FFFD, which would hash text the service never stored.
  if (typeof value !== 'string' || !wellFormed(value)) throw new TypeError(`${name}: not well-formed text`);
  const text = utf8.encode(value);
  const out = new Uint8Array(4 + text.length);
  new DataView(out.buffer).setUint32(0, text.length);
  out.set(text, 4);
  return out;
}

/**
 * The canonical bytes of an event (docs/integrity.md "Leaves"), as leaf.ts's encodeLeaf gives them: the version
 * byte, then each field in `LEAF_FIELDS` order, and for version 2 each of `LEAF_V2_FIELDS` after them, at its
 * default where the event does not have it. Throws a TypeError for a value of the wrong kind.
 */
export function encodeLeaf(event: LeafEvent): Uint8Array {
  const version2 = isVersion2(event);
  const fields = LEAF_FIELDS.map(({ name, kind }) => fieldBytes(name, kind, event[name]));
  if (version2)
    for (const { name, kind } of LEAF_V2_FIELDS)
      fields.push(fieldBytes(name, kind, orDefault(event[name], defaultOf(kind))));
  const out = new Uint8Array(1 + fields.reduce((n, f) => n + f.length, 0));
  out[0] = version2 ? LEAF_ENCODING_VERSION_2 : LEAF_ENCODING_VERSION;
  let at = 1;
  for (const field of fields) {
    out.set(field, at);
    at += field.length;
  }
  return out;
}

/** The event's leaf hash in its tenant's tree: SHA-256(0x00 || encodeLeaf(event)). */
export function leafHashOf(event: LeafEvent): Promise<Uint8Array> {
  return hashLeaf(encodeLeaf(event));
}
