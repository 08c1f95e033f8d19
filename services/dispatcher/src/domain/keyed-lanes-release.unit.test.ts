import { describe, expect, it } from 'vitest';
import { KeyedLanes } from './keyed-lanes.js';

const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
};

describe('KeyedLanes, a place handed back early', () => {
  it('lets the next task of the key start while the first finishes its bookkeeping, still counted in size', async () => {
    const lanes = new KeyedLanes(1);
    const bookkeeping = gate();
    const started: string[] = [];
    const first = lanes.run('k', async (release) => {
      started.push('first');
      release();
      release(); // twice is harmless
      await bookkeeping.promise;
    });
    const second = lanes.run('k', async () => {
      started.push('second');
    });
    await second;
    expect(started).toEqual(['first', 'second']);
    // The first is still unfinished: back-pressure sees it.
    expect(lanes.size).toBe(1);
    let belowOne = false;
    const waiting = lanes.whenBelow(1).then(() => (belowOne = true));
    await Promise.resolve();
    expect(belowOne).toBe(false);
    bookkeeping.open();
    await Promise.all([first, waiting]);
    expect(lanes.size).toBe(0);
  });

  it('never runs more than perKey tasks before they release, and a lane emptied early is reused cleanly', async () => {
    const lanes = new KeyedLanes(2);
    const held = [gate(), gate(), gate()];
    let running = 0;
    let most = 0;
    const tasks = held.map((g) =>
      lanes.run('k', async (release) => {
        running += 1;
        most = Math.max(most, running);
        await g.promise;
        running -= 1;
        release();
      }),
    );
    await Promise.resolve();
    expect(running).toBe(2);
    held.forEach((g) => g.open());
    await Promise.all(tasks);
    expect(most).toBe(2);
    await lanes.run('k', async (release) => release());
    expect(lanes.size).toBe(0);
  });
});
