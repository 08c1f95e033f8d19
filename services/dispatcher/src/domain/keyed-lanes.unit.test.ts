import { describe, expect, it } from 'vitest';
import { KeyedLanes } from './keyed-lanes.js';

const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
};

describe('KeyedLanes', () => {
  it('runs at most perKey tasks of one key at a time, and other keys beside them', async () => {
    const lanes = new KeyedLanes(2);
    const stuck = gate();
    const started: string[] = [];
    const slow = [1, 2, 3].map((i) =>
      lanes.run('dead', async () => {
        started.push(`dead${i}`);
        await stuck.promise;
      }),
    );
    await lanes.run('healthy', async () => {
      started.push('healthy');
    });
    expect(started).toEqual(['dead1', 'dead2', 'healthy']);
    expect(lanes.size).toBe(3);
    stuck.open();
    await Promise.all(slow);
    expect(started).toContain('dead3');
    expect(lanes.size).toBe(0);
  });

  it('settles a failed task like a finished one', async () => {
    const lanes = new KeyedLanes(1);
    await lanes.run('k', () => Promise.reject(new Error('boom')));
    expect(lanes.size).toBe(0);
  });

  it('tells back-pressure waiters when the load drops below their mark', async () => {
    const lanes = new KeyedLanes(10);
    const g = gate();
    const tasks = [1, 2, 3].map(() => lanes.run('k', () => g.promise));
    let released = false;
    const waiting = lanes.whenBelow(2).then(() => (released = true));
    await Promise.resolve();
    expect(released).toBe(false);
    g.open();
    await Promise.all([...tasks, waiting]);
    expect(released).toBe(true);
  });
});
