import { describe, expect, it } from 'vitest';
import { beginTreePositions } from './tree-positions.begin.js';

/** A topic of three partitions whose oldest kept records are at 5, 0 and 7, and a notary group's commits. */
function kafka(committed: { partition: number; offset: string }[]) {
  return {
    fetchOffsets: async () => [{ topic: 't', partitions: committed }],
    fetchTopicOffsets: async () =>
      [5, 0, 7].map((low, partition) => ({ partition, offset: '100', high: '100', low: String(low) })),
  };
}

async function begun(committed: { partition: number; offset: string }[]) {
  let starts: ReadonlyMap<number, string> = new Map();
  const positions = { begin: async (s: ReadonlyMap<number, string>) => void (starts = s) };
  await beginTreePositions(kafka(committed) as never, positions, 't', 3, 'audit-notary');
  return Object.fromEntries(starts);
}

describe('beginTreePositions', () => {
  it("begins a fresh deployment's trees with the oldest record each partition keeps", async () => {
    expect(await begun([])).toEqual({ 0: '5', 1: '0', 2: '7' });
  });

  it('goes on from where the notary of before had appended, partition by partition', async () => {
    expect(
      await begun([
        { partition: 0, offset: '-1' },
        { partition: 1, offset: '40' },
        { partition: 2, offset: '9' },
      ]),
    ).toEqual({ 0: '5', 1: '40', 2: '9' });
  });
});
