import { describe, expect, it } from 'vitest';
import { hashLeaf, rootOf } from './merkle.js';
import { rootOfLeaves } from './multiproof.js';

const leafHashes = (n: number) => Array.from({ length: n }, (_, i) => hashLeaf(Uint8Array.of(i, i >> 8)));

/** The cover of the leaves not in `shown`, made the slow way: every maximal subtree without a shown leaf. */
function coverOf(hashes: Uint8Array[], shown: Set<number>, start = 0, n = hashes.length): Uint8Array[] {
  const range = [...Array(n).keys()].map((i) => start + i);
  if (!range.some((i) => shown.has(i))) return [rootOf(hashes.slice(start, start + n))];
  if (n === 1) return [];
  let k = 1;
  while (k * 2 < n) k *= 2;
  return [...coverOf(hashes, shown, start, k), ...coverOf(hashes, shown, start + k, n - k)];
}

describe('rootOfLeaves', () => {
  it('gives the root from any set of shown leaves and the cover of the rest, for every tree up to 33', () => {
    for (let size = 1; size <= 33; size++) {
      const hashes = leafHashes(size);
      for (const pick of [
        [0],
        [size - 1],
        [0, size - 1],
        [...Array(size).keys()].filter((i) => i % 3 === 1),
      ]) {
        const shown = new Set(pick);
        const leaves = [...shown].sort((a, b) => a - b).map((index) => ({ index, hash: hashes[index]! }));
        expect(rootOfLeaves(size, leaves, coverOf(hashes, shown))).toEqual(rootOf(hashes));
      }
    }
  });

  it('gives the root from the cover alone when no leaf is shown, and the empty root for an empty tree', () => {
    const hashes = leafHashes(5);
    expect(rootOfLeaves(5, [], [rootOf(hashes)])).toEqual(rootOf(hashes));
    expect(rootOfLeaves(0, [], [])).toEqual(rootOf([]));
  });

  it('refuses leaves out of order or beyond the tree, and a cover too short or too long', () => {
    const hashes = leafHashes(8);
    const leaves = [2, 5].map((index) => ({ index, hash: hashes[index]! }));
    const cover = coverOf(hashes, new Set([2, 5]));
    expect(rootOfLeaves(8, leaves, cover)).toEqual(rootOf(hashes));
    expect(rootOfLeaves(8, [...leaves].reverse(), cover)).toBeNull();
    expect(rootOfLeaves(8, [leaves[0]!, leaves[0]!], cover)).toBeNull();
    expect(rootOfLeaves(5, leaves, cover)).toBeNull();
    expect(rootOfLeaves(8, leaves, cover.slice(1))).toBeNull();
    expect(rootOfLeaves(8, leaves, [...cover, cover[0]!])).toBeNull();
    expect(rootOfLeaves(8, leaves, [new Uint8Array(31), ...cover.slice(1)])).toBeNull();
  });

  it('gives another root when a shown leaf or a cover hash is changed', () => {
    const hashes = leafHashes(13);
    const leaves = [4, 9].map((index) => ({ index, hash: hashes[index]! }));
    const cover = coverOf(hashes, new Set([4, 9]));
    const other = hashLeaf(Uint8Array.of(99));
    expect(rootOfLeaves(13, [leaves[0]!, { index: 9, hash: other }], cover)).not.toEqual(rootOf(hashes));
    expect(rootOfLeaves(13, leaves, [other, ...cover.slice(1)])).not.toEqual(rootOf(hashes));
  });
});
