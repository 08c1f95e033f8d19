import { hashChildren } from '@audit-trail/integrity-verifier';

/**
 * A tree's store keeps the hashes of the complete subtrees of every fourth level (docs/integrity.md "The tree
 * store"): any subtree's hash is then made from at most 2^3 stored hashes of the band below it.
 */
export const STORED_LEVEL_STEP = 4;

/** The leaves [start, end) of a tree. */
export interface LeafRange {
  start: number;
  end: number;
}

/** A complete subtree: the 2^level leaves from index * 2^level on, whose hash a tree's store keeps. */
export interface Subtree {
  level: number;
  index: number;
}

/** The largest power of two below n (n > 1): where RFC 9162 splits a tree of n leaves. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The ranges whose hashes make the inclusion proof of leaf `index` in a tree of `size` leaves, leaf to root:
 * RFC 9162 section 2.1.3.1's PATH.
 */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  const path = (m: number, start: number, n: number): LeafRange[] => {
    if (n <= 1) return [];
    const k = split(n);
    return m < k
      ? [...path(m, start, k), { start: start + k, end: start + n }]
      : [...path(m - k, start + k, n - k), { start, end: start + k }];
  };
  if (!(index >= 0 && index < size)) throw new RangeError(`no leaf ${index} in a tree of ${size}`);
  return path(index, 0, size);
}

/**
 * The ranges whose hashes make the consistency proof from the tree of `first` leaves to the tree of `second`:
 * RFC 9162 section 2.1.4.1's PROOF; none when the first is empty or the two are one.
 */
export function consistencyRanges(first: number, second: number): LeafRange[] {
  const subproof = (m: number, start: number, n: number, whole: boolean): LeafRange[] => {
    if (m === n) return whole ? [] : [{ start, end: start + n }];
    const k = split(n);
    return m <= k
      ? [...subproof(m, start, k, whole), { start: start + k, end: start + n }]
      : [...subproof(m - k, start + k, n - k, false), { start, end: start + k }];
  };
  if (!(first >= 0 && first <= second)) throw new RangeError(`no consistency from ${first} to ${second}`);
  return first === 0 || first === second ? [] : subproof(first, 0, second, true);
}

/**
 * The complete subtrees a range of the tree is made of, left to right (the largest first). Every range RFC 9162
 * names starts at a multiple of a power of two at least its length, so the first is its left child whole.
 */
export function subtreesOf(range: LeafRange): Subtree[] {
  const out: Subtree[] = [];
  let at = range.start;
  while (at < range.end) {
    let level = 0;
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= range.end) level += 1;
    out.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return out;
}

/** A range's hash from the hashes of its complete subtrees, given in subtreesOf's order. */
export function hashOfSubtrees(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length === 0) throw new RangeError('a range of no leaves has no hash');
  let hash = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) hash = hashChildren(hashes[i]!, hash);
  return hash;
}

/** The proof of the given ranges, from a store's complete subtree hashes. */
export function proofOf(ranges: readonly LeafRange[], subtree: (s: Subtree) => Uint8Array): Uint8Array[] {
  return ranges.map((range) => hashOfSubtrees(subtreesOf(range).map(subtree)));
}

/**
 * The ranges whose hashes cover every leaf of a tree of `size` leaves but the given ones (ascending, unique, in
 * the tree): each largest subtree, as RFC 9162 splits the tree, holding none of them, left to right. With the
 * given leaves' own hashes they make the root (docs/integrity.md "Window proofs").
 */
export function coverRanges(indices: readonly number[], size: number): LeafRange[] {
  const out: LeafRange[] = [];
  let at = 0;
  const walk = (start: number, n: number): void => {
    if (at >= indices.length || indices[at]! >= start + n) out.push({ start, end: start + n });
    else if (n === 1) at += 1;
    else {
      const k = split(n);
      walk(start, k);
      walk(start + k, n - k);
    }
  };
  if (indices.some((i, k) => !(i >= 0 && i < size) || (k > 0 && i <= indices[k - 1]!)))
    throw new RangeError(`leaves not ascending within a tree of ${size}`);
  if (size > 0) walk(0, size);
  return out;
}

/**
 * How many stored hashes a proof of the given leaves reads (`coverRanges`, then each complete subtree from the
 * stored band at or below its level): the work of a page of a window proof, which a page is bounded by.
 */
export function storedHashReads(indices: readonly number[], size: number): number {
  let reads = 0;
  for (const range of coverRanges(indices, size))
    for (const s of subtreesOf(range)) reads += 2 ** (s.level % STORED_LEVEL_STEP);
  return reads;
}

/**
 * How many of a page's leaves (in the page's order) a proof may cover within `maxReads` stored hashes: the
 * longest prefix found by halving, at least one leaf (whose proof reads a few hashes per level).
 */
export function proofPrefix(pageIndices: readonly number[], size: number, maxReads: number): number {
  const reads = (k: number) =>
    storedHashReads(
      pageIndices.slice(0, k).sort((a, b) => a - b),
      size,
    );
  if (pageIndices.length === 0 || reads(pageIndices.length) <= maxReads) return pageIndices.length;
  let fits = 1;
  let over = pageIndices.length;
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (reads(mid) <= maxReads) fits = mid;
    else over = mid;
  }
  return fits;
}
