import { Buffer } from 'node:buffer';
import * as crypto from 'node:crypto';

// RFC 9162 section 2.1.1: SHA-256, with a one-byte prefix that keeps leaves and interior nodes apart.
export const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

// A proof, a tree or a verifier folds hundreds of thousands of nodes, so each hash's allocations count more than
// the hashing: crypto.hash (Node 20.12 and later) makes no Hash object, and its digest as 'binary' (latin1) text,
// turned back into bytes, lands in Node's pooled buffers rather than in an ArrayBuffer of its own (three times faster
// than createHash here, and far less for the garbage collector; docs/benchmarks/journal.md
// "bench:integrity").
export const sha256: (data: Uint8Array) => Uint8Array =
  typeof crypto.hash === 'function'
    ? (data) => Buffer.from(crypto.hash('sha256', data, 'binary'), 'binary')
    : (data) => crypto.createHash('sha256').update(data).digest();

/** The hash of a leaf: SHA-256(0x00 || data). */
export function hashLeaf(data: Uint8Array): Uint8Array {
  const input = Buffer.allocUnsafe(data.length + 1);
  input[0] = LEAF_PREFIX;
  input.set(data, 1);
  return sha256(input);
}

// Hashing reads its input at once, so one buffer serves every interior node of two SHA-256 hashes: a tree or a
// proof folds many. Other lengths (a malformed proof) are hashed as given.
const NODE_INPUT = Buffer.alloc(65);

/** The hash of an interior node: SHA-256(0x01 || left || right). */
export function hashChildren(left: Uint8Array, right: Uint8Array): Uint8Array {
  const input =
    left.length === 32 && right.length === 32
      ? NODE_INPUT
      : Buffer.allocUnsafe(1 + left.length + right.length);
  input[0] = NODE_PREFIX;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return sha256(input);
}

/** The root of an empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Uint8Array = sha256(new Uint8Array(0));

/**
 * The Merkle Tree Hash (RFC 9162 section 2.1.1) of the leaves whose hashes are given, in one pass: complete
 * subtrees are merged as they fill, and what is left is folded from the right, as the RFC's split at the
 * largest power of two below the size does.
 */
export function rootOf(leafHashes: readonly Uint8Array[]): Uint8Array {
  if (leafHashes.length === 0) return EMPTY_ROOT;
  // The roots of the complete subtrees so far, largest first; sizes[i] leaves under stack[i].
  const stack: Uint8Array[] = [];
  const sizes: number[] = [];
  for (const leaf of leafHashes) {
    let hash = leaf;
    let size = 1;
    while (sizes.length > 0 && sizes[sizes.length - 1] === size) {
      hash = hashChildren(stack.pop()!, hash);
      size += sizes.pop()!;
    }
    stack.push(hash);
    sizes.push(size);
  }
  let root = stack.pop()!;
  while (stack.length > 0) root = hashChildren(stack.pop()!, root);
  return root;
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);
// Every hash a proof is made of, and that it is checked against, is a SHA-256.
const hashes = (...h: (Uint8Array | readonly Uint8Array[])[]) =>
  h.flat().every((x) => x instanceof Uint8Array && x.length === 32);
const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);
const isSize = (n: number) => Number.isSafeInteger(n) && n >= 0;

/**
 * Whether `proof` shows the leaf hash at `index` in the tree of `size` leaves whose root is `root`: the
 * verification algorithm of RFC 9162 section 2.1.3.2, step for step.
 */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!isSize(index) || !isSize(size) || index >= size || !hashes(leafHash, root, proof)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = hashChildren(p, r);
      [fn, sn] = shiftUntilOdd(fn, sn);
    } else {
      r = hashChildren(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equal(r, root);
}

/**
 * Whether `proof` shows that the tree of `second` leaves (root `secondRoot`) extends the tree of `first` leaves
 * (root `firstRoot`) by appending only: RFC 9162 section 2.1.4.2, step for step, with the cases it leaves out
 * decided as its proofs are made: an empty first tree, and two trees of one size, have an empty proof.
 */
export function verifyConsistency(
  first: number,
  second: number,
  proof: readonly Uint8Array[],
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
): boolean {
  if (!isSize(first) || !isSize(second) || first > second) return false;
  if (!hashes(firstRoot, secondRoot, proof)) return false;
  if (first === 0) return proof.length === 0 && equal(firstRoot, EMPTY_ROOT);
  if (first === second) return proof.length === 0 && equal(firstRoot, secondRoot);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      [fn, sn] = shiftUntilOdd(fn, sn);
    } else {
      sr = hashChildren(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equal(fr, firstRoot) && equal(sr, secondRoot);
}

/** RFC 9162's "right-shift both fn and sn equally until either LSB(fn) is set or fn is 0". */
function shiftUntilOdd(fn: number, sn: number): [number, number] {
  while (!odd(fn) && fn !== 0) {
    fn = half(fn);
    sn = half(sn);
  }
  return [fn, sn];
}

function isPowerOfTwo(n: number): boolean {
  if (n < 1) return false;
  while (n % 2 === 0) n /= 2;
  return n === 1;
}
