import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashLeaf, rootOf } from '@audit-trail/integrity-verifier';
import { appendLeaves, EMPTY_FRONTIER, frontierRoot, type Frontier } from './tree-frontier.js';
import { subtreesOf } from './proof-ranges.js';

const leaves = (n: number) => Array.from({ length: n }, (_, i) => hashLeaf(Uint8Array.of(i % 256, i >> 8)));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('the tree frontier', () => {
  it('has the root of the whole tree, whatever batches the leaves came in', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }), (batches) => {
        const all = leaves(batches.reduce((a, b) => a + b, 0));
        let frontier: Frontier = EMPTY_FRONTIER;
        let at = 0;
        for (const n of batches) {
          frontier = appendLeaves(frontier, all.slice(at, at + n)).frontier;
          at += n;
          expect(frontier.size).toBe(at);
          expect(hex(frontierRoot(frontier))).toBe(hex(rootOf(all.slice(0, at))));
          // It is the tree's decomposition into complete subtrees.
          expect(frontier.hashes.length).toBe(at === 0 ? 0 : subtreesOf({ start: 0, end: at }).length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reports every complete subtree once, with its hash, as it completes', () => {
    const all = leaves(37);
    const { completed } = appendLeaves(
      appendLeaves(EMPTY_FRONTIER, all.slice(0, 11)).frontier,
      all.slice(11),
    );
    const first = appendLeaves(EMPTY_FRONTIER, all.slice(0, 11)).completed;
    const every = [...first, ...completed];
    // 37 leaves, 18 pairs, 9 of four, 4 of eight, 2 of sixteen, 1 of thirty-two.
    expect(every.length).toBe(37 + 18 + 9 + 4 + 2 + 1);
    for (const s of every) {
      const span = 2 ** s.level;
      expect(hex(s.hash)).toBe(hex(rootOf(all.slice(s.index * span, (s.index + 1) * span))));
    }
    expect(new Set(every.map((s) => `${s.level}/${s.index}`)).size).toBe(every.length);
  });

  it('refuses a frontier that does not match its size', () => {
    expect(() => appendLeaves({ size: 3, hashes: [leaves(1)[0]!] }, leaves(1))).toThrow(RangeError);
  });
});
