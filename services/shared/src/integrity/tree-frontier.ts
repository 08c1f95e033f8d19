import { EMPTY_ROOT, hashChildren } from '@audit-trail/integrity-verifier';
import { hashOfSubtrees, subtreesOf, type Subtree } from './proof-ranges.js';

/**
 * The right edge of an append-only tree: the hashes of the complete subtrees its size is made of, largest first
 * (one per bit set in the size). Enough to append leaves and to know the root, without the leaves themselves.
 */
export interface Frontier {
  size: number;
  hashes: readonly Uint8Array[];
}

export const EMPTY_FRONTIER: Frontier = { size: 0, hashes: [] };

/** A stored tree's size and right edge (its 32-byte hashes, concatenated) as a Frontier. */
export const frontierOf = (size: string, bytes: Buffer): Frontier => ({
  size: Number(size),
  hashes: Array.from({ length: bytes.length / 32 }, (_, i) => bytes.subarray(i * 32, (i + 1) * 32)),
});

/** A complete subtree that appending completed, with its hash: what a tree's store keeps. */
export interface CompletedSubtree extends Subtree {
  hash: Uint8Array;
}

/**
 * The frontier after appending the leaf hashes, and every complete subtree the leaves completed (each leaf, level
 * 0, and every subtree above it that became full) whose level `keep` accepts, in the order they were completed.
 * A store keeps a few levels only: the others are not collected at all (one object per node otherwise).
 */
export function appendLeaves(
  frontier: Frontier,
  leafHashes: readonly Uint8Array[],
  keep: (level: number) => boolean = () => true,
): { frontier: Frontier; completed: CompletedSubtree[] } {
  const hashes = [...frontier.hashes];
  // The sizes of the frontier's subtrees, largest first: the tree's decomposition into complete subtrees.
  const sizes = subtreesOf({ start: 0, end: frontier.size }).map((s) => 2 ** s.level);
  if (sizes.length !== hashes.length) throw new RangeError('the frontier does not match its size');
  const completed: CompletedSubtree[] = [];
  let size = frontier.size;
  for (const leaf of leafHashes) {
    let hash = leaf;
    let level = 0;
    let index = size;
    if (keep(level)) completed.push({ level, index, hash });
    // Merge while the subtree on the left has this one's size: together they complete the one above.
    while (sizes.length > 0 && sizes[sizes.length - 1] === 2 ** level) {
      sizes.pop();
      hash = hashChildren(hashes.pop()!, hash);
      level += 1;
      index = Math.floor(index / 2);
      if (keep(level)) completed.push({ level, index, hash });
    }
    hashes.push(hash);
    sizes.push(2 ** level);
    size += 1;
  }
  return { frontier: { size, hashes }, completed };
}

/** The root of the tree whose frontier this is: its subtrees folded from the right. */
export function frontierRoot(frontier: Frontier): Uint8Array {
  return frontier.hashes.length === 0 ? EMPTY_ROOT : hashOfSubtrees(frontier.hashes);
}
