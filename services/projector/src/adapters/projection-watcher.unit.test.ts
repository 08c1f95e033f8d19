import { describe, expect, it } from 'vitest';
import { createLogger } from '@audit/shared/platform';
import { type ProjectionState } from '@audit/shared/projection';
import { projectionWatcher, type ReplayRunner } from './projection-watcher.js';

function setup(initial: ProjectionState, idle = true) {
  let state = initial;
  let changedAt = 1;
  const acks: string[] = [];
  let running: number | null = null;
  const runner: ReplayRunner = {
    running: () => running,
    start: async (target) => void (running = target),
    stop: async () => void (running = null),
  };
  const tick = projectionWatcher({
    store: {
      read: async () => ({ ...state, changedAt }),
      ack: async (target, phase, member) => void acks.push(`${target}:${phase}:${member}`),
    },
    gate: { idle, observe: () => undefined },
    runner,
    member: () => 'm1',
    clock: () => 10,
    graceMs: 1000,
    logger: createLogger('test', 'silent'),
  });
  return {
    tick,
    acks,
    running: () => running,
    set(next: ProjectionState) {
      state = next;
      changedAt += 1;
    },
  };
}

describe('projectionWatcher', () => {
  it('runs the replay consumer through build and pause, stops it for the drain, and confirms each phase once', async () => {
    const w = setup({ phase: 'build', live: 1, target: 2 });
    await w.tick();
    expect(w.running()).toBe(2);
    expect(w.acks).toEqual([]);
    w.set({ phase: 'pause', live: 1, target: 2, until: 60_000 });
    await w.tick();
    await w.tick();
    expect(w.running()).toBe(2);
    expect(w.acks).toEqual(['2:pause:m1']);
    w.set({ phase: 'drain', live: 1, target: 2, until: 60_000 });
    await w.tick();
    expect(w.running()).toBe(null);
    expect(w.acks).toEqual(['2:pause:m1', '2:pause:m1', '2:drain:m1']);
    w.set({ phase: 'live', live: 2 });
    await w.tick();
    expect(w.running()).toBe(null);
  });

  it('does not confirm a pause while a live write is in flight', async () => {
    const w = setup({ phase: 'pause', live: 1, target: 2, until: 60_000 }, false);
    await w.tick();
    expect(w.acks).toEqual([]);
  });

  it('stops the replay consumer when the replay was given up (back to live)', async () => {
    const w = setup({ phase: 'build', live: 1, target: 2 });
    await w.tick();
    w.set({ phase: 'live', live: 1 });
    await w.tick();
    expect(w.running()).toBe(null);
  });
});
