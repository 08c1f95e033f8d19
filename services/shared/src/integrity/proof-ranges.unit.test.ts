import fc from 'fast-check';
import { RFC9162 } from '@transmute/rfc9162';
import { describe, expect, it } from 'vitest';
import {
  hashLeaf,
  rootOf,
  rootOfLeaves,
  verifyConsistency,
  verifyInclusion,
} from '@audit-trail/integrity-verifier';
import {
  consistencyRanges,
  coverRanges,
  inclusionRanges,
  proofOf,
  subtreesOf,
  type Subtree,
  proofPrefix,
  storedHashReads,
} from './proof-ranges.js';

const entries = (n: number) => Array.from({ length: n }, (_, i) => new TextEncoder().encode(`event ${i}`));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A store of complete subtree hashes, as the service keeps them, over in-memory leaves. */
function store(leaves: readonly Uint8Array[]) {
  const hashes = leaves.map(hashLeaf);
  return (s: Subtree) => rootOf(hashes.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));
}

describe('proofs made from complete subtrees', () => {
  // Its consistency proofs are left out: they carry the first tree's root where RFC 9162 has none (SUBPROOF of
  // m leaves in a tree of m, when b is true), so they are checked against the RFC's own examples below.
  it('are the inclusion proofs and roots of an independent implementation (@transmute/rfc9162)', async () => {
    for (let size = 1; size <= 40; size++) {
      const data = entries(size);
      const subtree = store(data);
      expect(hex(rootOf(data.map(hashLeaf)))).toBe(hex(await RFC9162.MTH(data)));
      for (let m = 0; m < size; m++) {
        const ours = proofOf(inclusionRanges(m, size), subtree).map(hex);
        expect(ours).toEqual((await RFC9162.PATH(m, data)).map(hex));
      }
    }
  });

  it("are the RFC's examples for its tree of seven leaves (RFC 6962 section 2.1.3)", () => {
    // The RFC's node names, as leaf ranges.
    const [b, c, d, f, g, h, i, j, k, l] = (
      [
        [1, 2],
        [2, 3],
        [3, 4],
        [5, 6],
        [0, 2],
        [2, 4],
        [4, 6],
        [6, 7],
        [0, 4],
        [4, 7],
      ] as const
    ).map(([start, end]) => ({ start, end }));
    expect(inclusionRanges(0, 7)).toEqual([b, h, l]);
    expect(inclusionRanges(3, 7)).toEqual([c, g, l]);
    expect(inclusionRanges(4, 7)).toEqual([f, j, k]);
    expect(inclusionRanges(6, 7)).toEqual([i, k]);
    expect(consistencyRanges(3, 7)).toEqual([c, d, g, l]);
    expect(consistencyRanges(4, 7)).toEqual([l]);
    expect(consistencyRanges(6, 7)).toEqual([i, j, k]);
  });

  it('verify, and fail once a hash or the index is changed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.nat(), fc.nat(), fc.nat(31), (size, a, b, bit) => {
        const data = entries(size);
        const subtree = store(data);
        const root = rootOf(data.map(hashLeaf));
        const index = a % size;
        const leaf = hashLeaf(data[index]!);
        const path = proofOf(inclusionRanges(index, size), subtree);
        expect(verifyInclusion(leaf, index, size, path, root)).toBe(true);
        if (size > 1) expect(verifyInclusion(leaf, (index + 1) % size, size, path, root)).toBe(false);
        const flipped = Uint8Array.from(root);
        flipped[bit] = flipped[bit]! ^ 1;
        expect(verifyInclusion(leaf, index, size, path, flipped)).toBe(false);

        const first = (b % size) + 1;
        const firstRoot = rootOf(data.slice(0, first).map(hashLeaf));
        const proof = proofOf(consistencyRanges(first, size), subtree);
        expect(verifyConsistency(first, size, proof, firstRoot, root)).toBe(true);
        if (proof.length > 0) {
          const bad = proof.map((h, i) => (i === bit % proof.length ? flipped : h));
          expect(verifyConsistency(first, size, bad, firstRoot, root)).toBe(false);
        }
        if (first < size) expect(verifyConsistency(first, size, proof, root, root)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('cut a range into complete subtrees, largest first', () => {
    expect(subtreesOf({ start: 0, end: 7 })).toEqual([
      { level: 2, index: 0 },
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
    expect(subtreesOf({ start: 8, end: 16 })).toEqual([{ level: 3, index: 1 }]);
  });

  it('refuse leaves and sizes the tree does not have', () => {
    expect(() => inclusionRanges(5, 5)).toThrow(RangeError);
    expect(() => consistencyRanges(6, 5)).toThrow(RangeError);
    expect(consistencyRanges(0, 5)).toEqual([]);
    expect(consistencyRanges(5, 5)).toEqual([]);
  });
});

describe('window proofs', () => {
  it("cover any set of leaves so that the verifier's rootOfLeaves gives the tree's root", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 300 })
          .chain((size) => fc.tuple(fc.constant(size), fc.uniqueArray(fc.nat(size - 1), { maxLength: 20 }))),
        ([size, picked]) => {
          const data = entries(size);
          const indices = [...picked].sort((a, b) => a - b);
          const cover = proofOf(coverRanges(indices, size), store(data));
          const shown = indices.map((index) => ({ index, hash: hashLeaf(data[index]!) }));
          expect(hex(rootOfLeaves(size, shown, cover)!)).toBe(hex(rootOf(data.map(hashLeaf))));
        },
      ),
    );
  });

  it('of a run of leaves take a few hashes on either side, and refuse leaves out of order', () => {
    expect(coverRanges([], 5)).toEqual([{ start: 0, end: 5 }]);
    expect(coverRanges([2, 3], 8)).toEqual([
      { start: 0, end: 2 },
      { start: 4, end: 8 },
    ]);
    expect(
      coverRanges(
        [...Array(100).keys()].map((i) => i + 1000),
        1 << 20,
      ).length,
    ).toBeLessThanOrEqual(40);
    expect(() => coverRanges([3, 2], 8)).toThrow(RangeError);
    expect(() => coverRanges([8], 8)).toThrow(RangeError);
  });
});

describe('the work of a page of a window proof', () => {
  it('counts the stored hashes its subtrees are made from', () => {
    // Leaf 0 of 16: its cover is the subtrees [1], [2,4), [4,8), [8,16), of levels 0 to 3, each made from the
    // leaf band: 1 + 2 + 4 + 8 reads. Leaf 0 of 32 adds [16,32), of level 4: one stored hash.
    expect(storedHashReads([0], 16)).toBe(15);
    expect(storedHashReads([0], 32)).toBe(16);
    expect(storedHashReads([], 16)).toBe(1);
  });

  it('takes the longest prefix of a page whose proof fits, at least one leaf', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 400 }),
        (size, picks, maxReads) => {
          const page = [...new Set(picks.map((p) => p % size))];
          const k = proofPrefix(page, size, maxReads);
          const reads = (n: number) =>
            storedHashReads(
              page.slice(0, n).sort((a, b) => a - b),
              size,
            );
          expect(k).toBeGreaterThanOrEqual(1);
          expect(k === 1 || reads(k) <= maxReads).toBe(true);
          if (reads(page.length) <= maxReads) expect(k).toBe(page.length);
        },
      ),
    );
  });
});
