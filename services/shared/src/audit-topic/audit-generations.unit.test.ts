import { describe, expect, it } from 'vitest';
import { AuditGenerations } from './audit-generations.js';

const base = { name: 'p.audit.events.v1', partitions: 2 };
const g2 = `${base.name}.g2`;

/** Postgres with generation 2 recorded, sealed at these ends once `sealed` is set; the group's commits as given. */
function deployment(committed: Map<number, string>) {
  const state = { sealed: null as string[] | null, offsetReads: 0 };
  const db = {
    query: async () => ({
      rows: [{ generation: 2, topic: g2, partitions: 4, previous_ends: state.sealed }],
    }),
  };
  const admin = {
    fetchOffsets: async ({ topics }: { topics: string[] }) => {
      state.offsetReads++;
      return topics.map((topic) => ({
        topic,
        partitions: [0, 1].map((partition) => ({
          partition,
          offset: committed.get(partition) ?? '-1',
          metadata: null,
        })),
      }));
    },
  };
  return { state, deps: { db: db as never, admin: admin as never, base } };
}

describe('AuditGenerations', () => {
  it('lists every generation with generation 1 first, and counts their partitions', async () => {
    const { deps } = deployment(new Map());
    const generations = await AuditGenerations.load(deps);
    expect(generations.topics()).toEqual([base.name, g2]);
    expect(generations.partitions()).toBe(6);
    expect(generations.generationOf(g2)).toBe(2);
    expect(generations.generationOf('other')).toBeNull();
  });

  it('opens a generation once the group committed the one before up to its seal, and keeps it open', async () => {
    const committed = new Map([[0, '3']]);
    const { state, deps } = deployment(committed);
    const gate = (await AuditGenerations.load(deps)).gate('group', 0);
    expect(await gate.isOpen(base.name)).toBe(true);
    expect(await gate.isOpen(g2)).toBe(false);
    state.sealed = ['5', '0'];
    expect(await gate.isOpen(g2)).toBe(false);
    committed.set(0, '5');
    expect(await gate.isOpen(g2)).toBe(true);
    const reads = state.offsetReads;
    committed.set(0, '1');
    expect(await gate.isOpen(g2)).toBe(true);
    expect(state.offsetReads).toBe(reads);
  });

  it('asks again at most once a poll while a generation is held', async () => {
    const { state, deps } = deployment(new Map());
    const gate = (await AuditGenerations.load(deps)).gate('group', 60_000);
    expect(await gate.isOpen(g2)).toBe(false);
    expect(await gate.isOpen(g2)).toBe(false);
    expect(state.offsetReads).toBe(1);
    // A wait ends once its consumer stops, open or not.
    await expect(gate.whenOpen(g2, () => true)).resolves.toBeUndefined();
  });

  it('counts a partition as read up to the lower of the commit and the progress given beside it', async () => {
    const { state, deps } = deployment(new Map([[0, '5']]));
    state.sealed = ['5', '0'];
    const trees = new Map([[base.name, new Map([[0, 2n]])]]);
    const gate = (await AuditGenerations.load(deps)).gate('group', 0, async () => trees);
    expect(await gate.isOpen(g2)).toBe(false);
    trees.get(base.name)!.set(0, 5n);
    expect(await gate.isOpen(g2)).toBe(true);
  });
});
