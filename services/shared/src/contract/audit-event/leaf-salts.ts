import { createHash } from 'node:crypto';

/** An event's salts as the API gives them: 16 bytes for each of the eight fields a version 3 leaf commits to. */
export const LEAF_SALTS_BYTES = 128;
/** What the service keeps of an event's salts until one of its fields is erased: a random seed they derive from. */
export const LEAF_SEED_BYTES = 16;

// Apart from any other use of SHAKE256 on such a seed.
const DERIVATION_TAG = Buffer.from('audit-trail leaf salts\n', 'latin1');

/** The one base64 text of bytes of one of the given lengths. */
const isBase64Of = (text: string, lengths: readonly number[]) => {
  const bytes = Buffer.from(text, 'base64');
  return lengths.includes(bytes.length) && bytes.toString('base64') === text;
};

/**
 * `leaf_salts` as the topic and ClickHouse hold it (docs/integrity.md "Version 3"): "" for an event without salts,
 * the base64 of a seed, or, for an event with an erased field, the base64 of its salts themselves.
 */
export const isStoredLeafSalts = (text: string): boolean =>
  text === '' || isBase64Of(text, [LEAF_SEED_BYTES, LEAF_SALTS_BYTES]);

/**
 * An event's salts from what is stored of them: SHAKE256(DERIVATION_TAG || seed), 128 bytes, for a seed; the salts
 * themselves where they are stored whole. The stored text has been checked (isStoredLeafSalts).
 */
export function leafSaltBytes(stored: string): Buffer {
  const bytes = Buffer.from(stored, 'base64');
  if (bytes.length !== LEAF_SEED_BYTES) return bytes;
  return createHash('shake256', { outputLength: LEAF_SALTS_BYTES })
    .update(DERIVATION_TAG)
    .update(bytes)
    .digest();
}

/** An event's salts as the API gives them (base64 of LEAF_SALTS_BYTES), from what is stored of them. */
export const leafSaltsText = (stored: string): string =>
  Buffer.byteLength(stored, 'base64') === LEAF_SEED_BYTES ? leafSaltBytes(stored).toString('base64') : stored;
