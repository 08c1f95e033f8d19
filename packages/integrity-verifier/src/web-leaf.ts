// The leaf encoding (docs/integrity.md "Leaves") with the Web's UTF-8 encoder, for the web entry: leaf.ts writes it
// into Node Buffers, faster for the millions of events a trail has, but not in a browser.
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
import { hashLeaf, sha256 } from './web-crypto.js';

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
 * A committed field's bytes in a version 3 encoding: the erased field's commitment as given, or else
 * SHA-256(COMMITMENT_TAG || its number || its salt || its UTF-8), as leaf.ts makes them.
 */
async function commitmentBytes(
  c: LeafCommitments,
  name: CommittedField,
  number: number,
  value: unknown,
): Promise<Uint8Array> {
  let hash = c.erased.get(name);
  if (hash === undefined) {
    const text = fieldBytes(name, 'text', value).subarray(4);
    const slot = COMMITTED_FIELDS.indexOf(name);
    const input = new Uint8Array(2 + SALT_BYTES + text.length);
    input.set([COMMITMENT_TAG, number]);
    input.set(c.salts.subarray(slot * SALT_BYTES, (slot + 1) * SALT_BYTES), 2);
    input.set(text, 2 + SALT_BYTES);
    hash = await sha256(input);
  }
  if (hash.length !== COMMITMENT_BYTES)
    throw new TypeError(`${name}: a commitment is ${COMMITMENT_BYTES} bytes`);
  return hash;
}

/**
 * Each field's bytes of a version 3 encoding (docs/integrity.md "Version 3"): every field, in order, one after the
 * other, so that the first field refused is the one leaf.ts refuses.
 */
async function version3Fields(event: LeafEvent, c: LeafCommitments): Promise<Uint8Array[]> {
  if (c.salts.length !== SALT_BYTES * COMMITTED_FIELDS.length)
    throw new TypeError(`commitments: ${SALT_BYTES} bytes of salt per committed field`);
  const fields: Uint8Array[] = [];
  for (const [i, { name, kind }] of [...LEAF_FIELDS, ...LEAF_V2_FIELDS].entries()) {
    // A field of LEAF_V2_FIELDS the event has not got has its default.
    const value = i < LEAF_FIELDS.length ? event[name] : orDefault(event[name], defaultOf(kind));
    fields.push(
      (COMMITTED_FIELDS as readonly string[]).includes(name)
        ? await commitmentBytes(c, name as CommittedField, i + 1, value)
        : fieldBytes(name, kind, value),
    );
  }
  return fields;
}

/**
 * The canonical bytes of an event (docs/integrity.md "Leaves"), as leaf.ts's encodeLeaf gives them: the version
 * byte, then each field in `LEAF_FIELDS` order, and for version 2 each of `LEAF_V2_FIELDS` after them, at its
 * default where the event does not have it; for version 3 every field, the committed ones as their commitments.
 * Asynchronous, as WebCrypto's SHA-256 is: version 3 hashes each committed field. Rejects with a TypeError for a
 * value of the wrong kind.
 */
export async function encodeLeaf(event: LeafEvent): Promise<Uint8Array> {
  const version =
    event.commitments !== undefined
      ? LEAF_ENCODING_VERSION_3
      : isVersion2(event)
        ? LEAF_ENCODING_VERSION_2
        : LEAF_ENCODING_VERSION;
  const fields =
    event.commitments !== undefined
      ? await version3Fields(event, event.commitments)
      : LEAF_FIELDS.map(({ name, kind }) => fieldBytes(name, kind, event[name]));
  if (version === LEAF_ENCODING_VERSION_2)
    for (const { name, kind } of LEAF_V2_FIELDS)
      fields.push(fieldBytes(name, kind, orDefault(event[name], defaultOf(kind))));
  const out = new Uint8Array(1 + fields.reduce((n, f) => n + f.length, 0));
  out[0] = version;
  let at = 1;
  for (const field of fields) {
    out.set(field, at);
    at += field.length;
  }
  return out;
}

/** The event's leaf hash in its tenant's tree: SHA-256(0x00 || encodeLeaf(event)). */
export async function leafHashOf(event: LeafEvent): Promise<Uint8Array> {
  return hashLeaf(await encodeLeaf(event));
}
