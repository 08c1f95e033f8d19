import { describe, expect, it } from 'vitest';
import { EMPTY_ROOT, hashLeaf, rootOf, verifyConsistency, verifyInclusion } from './merkle.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// The test vectors of Certificate Transparency's reference code (and transparency-dev/merkle): the roots of the
// trees over the first n of these eight leaves.
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
const leafHashes = LEAVES.map((l) => hashLeaf(Buffer.from(l, 'hex')));

describe('the Merkle tree hash', () => {
  it("is the reference vectors' roots", () => {
    expect(hex(EMPTY_ROOT)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(rootOf([]))).toBe(hex(EMPTY_ROOT));
    for (let n = 1; n <= 8; n++) expect(hex(rootOf(leafHashes.slice(0, n)))).toBe(ROOTS[n - 1]);
  });
});

describe('proof verification', () => {
  const root = (n: number) => Buffer.from(ROOTS[n - 1]!, 'hex');

  it('accepts a one-leaf tree with an empty inclusion proof, and refuses a leaf past the end', () => {
    expect(verifyInclusion(leafHashes[0]!, 0, 1, [], root(1))).toBe(true);
    expect(verifyInclusion(leafHashes[0]!, 1, 1, [], root(1))).toBe(false);
    expect(verifyInclusion(leafHashes[0]!, -1, 1, [], root(1))).toBe(false);
  });

  it('refuses an inclusion proof with a hash too many or too few', () => {
    const proof = [leafHashes[1]!];
    expect(verifyInclusion(leafHashes[0]!, 0, 2, proof, root(2))).toBe(true);
    expect(verifyInclusion(leafHashes[0]!, 0, 2, [], root(2))).toBe(false);
    expect(verifyInclusion(leafHashes[0]!, 0, 2, [...proof, leafHashes[2]!], root(2))).toBe(false);
  });

  it('decides the consistency cases the RFC leaves out: from an empty tree, and of a tree with itself', () => {
    expect(verifyConsistency(0, 5, [], EMPTY_ROOT, root(5))).toBe(true);
    expect(verifyConsistency(0, 5, [leafHashes[0]!], EMPTY_ROOT, root(5))).toBe(false);
    expect(verifyConsistency(5, 5, [], root(5), root(5))).toBe(true);
    expect(verifyConsistency(5, 5, [], root(5), root(6))).toBe(false);
    expect(verifyConsistency(6, 5, [], root(6), root(5))).toBe(false);
    // A larger tree always needs a proof.
    expect(verifyConsistency(4, 5, [], root(4), root(5))).toBe(false);
  });
});
