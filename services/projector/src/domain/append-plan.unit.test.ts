import { describe, expect, it } from 'vitest';
import { EMPTY_FRONTIER, leafHashOf, rootOf, frontierRoot, type Frontier } from '@audit/shared/integrity';
import { sampleRecord } from '@audit/shared/test-support';
import { planAppend } from './append-plan.js';
import { idKey } from './project-batch.js';

const events = (tenant: string, n: number) =>
  Array.from({ length: n }, (_, i) => sampleRecord({ tenant_id: tenant, resource_id: `r${i}` }));

describe('planAppend', () => {
  it("makes each event its tenant's next leaf, once, at its first occurrence in the batch", () => {
    const [a1, a2, a3] = events('a', 3);
    const [b1] = events('b', 1);
    const known = new Set([idKey({ tenant_id: 'a', event_id: a2!.event_id })]);
    const trees = new Map<string, Frontier>([
      ['a', { size: 5, hashes: [new Uint8Array(32), new Uint8Array(32)] }],
      ['b', EMPTY_FRONTIER],
    ]);
    const plan = planAppend([a1!, b1!, a2!, a1!, a3!, b1!], trees, known);
    expect(plan.leaves.map((l) => [l.tenant_id, l.leaf_index, l.event_id])).toEqual([
      ['a', 5, a1!.event_id],
      ['a', 6, a3!.event_id],
      ['b', 0, b1!.event_id],
    ]);
    expect(plan.leaves[0]!.leaf_hash).toEqual(leafHashOf(a1!));
    expect([...plan.trees.keys()].sort()).toEqual(['a', 'b']);
    expect(plan.trees.get('a')!.size).toBe(7);
  });

  it('grows the same tree batch by batch as at once, storing every complete subtree of every fourth level', () => {
    const all = events('t', 700);
    let frontier: Frontier = EMPTY_FRONTIER;
    const stored: { level: number; index: number; hash: Uint8Array }[] = [];
    for (const size of [1, 254, 3, 300, 142]) {
      const batch = all.slice(frontier.size, frontier.size + size);
      const plan = planAppend(batch, new Map([['t', frontier]]), new Set());
      stored.push(...plan.subtrees);
      frontier = plan.trees.get('t')!;
    }
    const hashes = all.map((e) => leafHashOf(e));
    expect(frontier.size).toBe(700);
    expect(frontierRoot(frontier)).toEqual(rootOf(hashes));
    const indexes = (level: number) => stored.filter((s) => s.level === level).map((s) => s.index);
    expect(indexes(4)).toEqual([...Array(43).keys()]);
    expect(indexes(8)).toEqual([0, 1]);
    expect(stored).toHaveLength(45);
    const hashOf = (level: number, index: number) =>
      stored.find((s) => s.level === level && s.index === index)!.hash;
    expect(hashOf(8, 1)).toEqual(rootOf(hashes.slice(256, 512)));
    expect(hashOf(4, 42)).toEqual(rootOf(hashes.slice(672, 688)));
  });

  it('adds nothing for a batch whose events are all leaves already', () => {
    const batch = events('t', 3);
    const known = new Set(batch.map((e) => idKey(e)));
    const plan = planAppend(batch, new Map([['t', EMPTY_FRONTIER]]), known);
    expect(plan).toEqual({ leaves: [], subtrees: [], trees: new Map() });
  });

  it("refuses a batch without its tenant's tree", () => {
    expect(() => planAppend(events('t', 1), new Map(), new Set())).toThrow(/no tree given for tenant t/);
  });
});
