// RFC 9162 inclusion proofs with WebCrypto, for the web entry. The steps are merkle.ts's verifyInclusion, written
// again rather than shared: each hash waits for WebCrypto here, and the two entries, checked against each other on
// random proofs (web-merkle.unit.test.ts), each stand on their own.
import { equalBytes } from './bytes.js';
import { hashChildren } from './web-crypto.js';

const isSize = (n: number) => Number.isSafeInteger(n) && n >= 0;
const isHash = (h: unknown) => h instanceof Uint8Array && h.length === 32;
const half = (n: number) => Math.floor(n / 2);

/**
 * The root that `proof` (RFC 9162 PATH, leaf to root) makes of the leaf hash at `index` in a tree of `size`
 * leaves, by the verification algorithm of RFC 9162 section 2.1.3.2; null when the proof cannot be one for that
 * leaf (a hash too many or too few, a leaf past the end, a hash that is no SHA-256).
 */
export async function rootOfInclusionProof(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
): Promise<Uint8Array | null> {
  if (!isSize(index) || !isSize(size) || index >= size || !isHash(leafHash) || !proof.every(isHash))
    return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = await hashChildren(p, r);
      // Right-shift both until fn's lowest bit is set or fn is 0.
      while (fn % 2 === 0 && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = await hashChildren(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : null;
}

/** Whether `proof` shows the leaf hash at `index` in the tree of `size` leaves whose root is `root`. */
export async function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Promise<boolean> {
  if (!isHash(root)) return false;
  const made = await rootOfInclusionProof(leafHash, index, size, proof);
  return made !== null && equalBytes(made, root);
}
