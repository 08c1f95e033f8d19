import { describe, expect, it } from 'vitest';
import { isStoredLeafSalts, leafSaltBytes, leafSaltsText } from './leaf-salts.js';

// A seed of the bytes 0x00 to 0x0f, and its salts as Python's hashlib.shake_256 gives them for the documented
// input (docs/integrity.md "Version 3"): an implementation apart from Node's.
const SEED = 'AAECAwQFBgcICQoLDA0ODw==';
const SALTS =
  '1kI6MY0qP4cTM+90xrqxW5E0rTj/HTQNDV5Tvi8zLqts0+N/OimZoXOUhcu/FkNK8XwIMxiFzUPXmbQ/aAThkJ2i7kfakqrVwxSPutaoAD7PUO7CjsgB1mlQPM71lr4w70D8kJK3N6SUOu/AB54/4kFFK9TOUKnm23+i35SGUH0=';

describe('leaf salts', () => {
  it("derives an event's salts from its seed: SHAKE256 of the tag and the seed, 128 bytes", () => {
    expect(leafSaltsText(SEED)).toBe(SALTS);
    expect(leafSaltBytes(SEED)).toEqual(Buffer.from(SALTS, 'base64'));
    expect(leafSaltsText(Buffer.alloc(16, 1).toString('base64'))).not.toBe(SALTS);
  });

  it('gives salts stored whole (an event with an erased field) as they are', () => {
    expect(leafSaltsText(SALTS)).toBe(SALTS);
    expect(leafSaltBytes(SALTS)).toEqual(Buffer.from(SALTS, 'base64'));
  });

  it('takes as stored text only "", a seed or whole salts, each as the one base64 text of its bytes', () => {
    for (const good of ['', SEED, SALTS]) expect(isStoredLeafSalts(good), good).toBe(true);
    for (const bad of [
      Buffer.alloc(15).toString('base64'),
      Buffer.alloc(17).toString('base64'),
      Buffer.alloc(127).toString('base64'),
      SEED.replace('==', ''),
      SEED.replace('Dw==', 'Dx=='),
      ` ${SEED}`,
      SALTS.replace('/', '_'),
    ])
      expect(isStoredLeafSalts(bad), bad).toBe(false);
  });
});
