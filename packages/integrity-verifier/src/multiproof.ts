import { EMPTY_ROOT, hashChildren } from './merkle.js';

/** A leaf a window proof shows: its place in the tree, from 0, and its leaf hash. */
export interface ProvenLeaf {
  index: number;
  hash: Uint8Array;
}

/** The largest power of two below n (n > 1): where RFC 9162 splits a tree of n leaves. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The root of the tree of `size` leaves, made from some of its leaves and the `cover` hashes of all the others
 * (docs/integrity.md "Window proofs"): the tree is walked from its root, left first, as RFC 9162 splits it; a
 * subtree holding no given leaf takes the next cover hash, a given leaf its own hash. Null when the leaves are not
 * in strictly ascending order of index within the tree, or the cover has too few or too many hashes.
 */
export function rootOfLeaves(
  size: number,
  leaves: readonly ProvenLeaf[],
  cover: readonly Uint8Array[],
): Uint8Array | null {
  if (!Number.isSafeInteger(size) || size < 0) return null;
  const ordered = leaves.every(
    (l, i) => Number.isSafeInteger(l.index) && l.index >= 0 && (i === 0 || l.index > leaves[i - 1]!.index),
  );
  if (!ordered || (leaves.length > 0 && leaves.at(-1)!.index >= size)) return null;
  if ([...leaves.map((l) => l.hash), ...cover].some((h) => !(h instanceof Uint8Array) || h.length !== 32))
    return null;
  if (size === 0) return cover.length === 0 ? EMPTY_ROOT : null;
  let leaf = 0;
  let next = 0;
  const walk = (start: number, n: number): Uint8Array | null => {
    if (leaf >= leaves.length || leaves[leaf]!.index >= start + n) return cover[next++] ?? null;
    if (n === 1) return leaves[leaf++]!.hash;
    const k = split(n);
    const left = walk(start, k);
    const right = left && walk(start + k, n - k);
    return left && right && hashChildren(left, right);
  };
  const root = walk(0, size);
  return root && next === cover.length ? root : null;
}
