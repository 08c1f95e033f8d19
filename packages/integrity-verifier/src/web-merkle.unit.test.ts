import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inclusionRanges, proofOf } from '../../../services/shared/src/integrity/proof-ranges.js';
import * as node from './index.js';
import { hashChildren, hashLeaf, rootOfInclusionProof, verifyInclusion } from './web.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// merkle.unit.test.ts's vectors, Certificate Transparency's: the roots of the trees over the first n leaves.
const LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
];
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

/** The leaf hashes of a tree of `size` leaves, and the inclusion proof of each, made as the service makes them. */
function tree(size: number) {
  const leaves = Array.from({ length: size }, (_, i) => node.hashLeaf(Uint8Array.of(i >> 8, i & 0xff)));
  const subtree = (s: { level: number; index: number }) =>
    node.rootOf(leaves.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));
  return {
    leaves,
    root: node.rootOf(leaves),
    proof: (i: number) => proofOf(inclusionRanges(i, size), subtree),
  };
}

describe("the web entry's inclusion proofs", () => {
  it("make the reference vectors' roots from every leaf of every tree", async () => {
    const leaves = await Promise.all(LEAVES.map((l) => hashLeaf(Buffer.from(l, 'hex'))));
    expect(leaves.map(hex)).toEqual(LEAVES.map((l) => hex(node.hashLeaf(Buffer.from(l, 'hex')))));
    for (let n = 1; n <= 8; n++) {
      const subtree = (s: { level: number; index: number }) =>
        node.rootOf(leaves.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));
      for (let i = 0; i < n; i++) {
        const proof = proofOf(inclusionRanges(i, n), subtree);
        expect(hex((await rootOfInclusionProof(leaves[i]!, i, n, proof))!)).toBe(ROOTS[n - 1]);
      }
    }
    const [a, b] = [leaves[0]!, leaves[1]!];
    expect(hex(await hashChildren(a, b))).toBe(hex(node.hashChildren(a, b)));
  });

  it("refuse what merkle.unit.test.ts's proofs refuse: a leaf past the end, a hash too many or too few", async () => {
    const { leaves, root, proof } = tree(2);
    expect(await verifyInclusion(leaves[0]!, 0, 2, proof(0), root)).toBe(true);
    expect(await verifyInclusion(leaves[0]!, 0, 2, [], root)).toBe(false);
    expect(await verifyInclusion(leaves[0]!, 0, 2, [...proof(0), leaves[1]!], root)).toBe(false);
    expect(await rootOfInclusionProof(leaves[0]!, 2, 2, proof(0))).toBeNull();
    expect(await rootOfInclusionProof(leaves[0]!, -1, 2, proof(0))).toBeNull();
    expect(await rootOfInclusionProof(leaves[0]!.subarray(1), 0, 2, proof(0))).toBeNull();
  });

  it("give the Node entry's verdict on proofs of random trees, whole or tampered with", async () => {
    // One way of spoiling a proof, or none: a hash's bit flipped, a hash left out or added, another leaf or size.
    const change = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(255) }),
      fc.record({
        kind: fc.constantFrom('drop' as const, 'add' as const, 'index' as const, 'size' as const),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 300 }), fc.nat(), change, async (size, at, spoil) => {
        const { leaves, root, proof: proofAt } = tree(size);
        const index = at % size;
        let proof = proofAt(index);
        let [i, n] = [index, size];
        if (spoil.kind === 'flip' && proof.length > 0) {
          const k = spoil.at % proof.length;
          const flipped = Uint8Array.from(proof[k]!);
          flipped[spoil.bit >> 3]! ^= 1 << (spoil.bit & 7);
          proof = proof.with(k, flipped);
        } else if (spoil.kind === 'drop') proof = proof.slice(1);
        else if (spoil.kind === 'add') proof = [...proof, root];
        else if (spoil.kind === 'index') i = (index + 1) % size;
        else if (spoil.kind === 'size') n = size + 1;
        const leaf = leaves[index]!;
        const web = await verifyInclusion(leaf, i, n, proof, root);
        expect(web).toBe(node.verifyInclusion(leaf, i, n, proof, root));
        if (spoil.kind === 'none') {
          expect(web).toBe(true);
          expect(hex((await rootOfInclusionProof(leaf, i, n, proof))!)).toBe(hex(root));
        }
      }),
      { numRuns: 400 },
    );
  });
});
