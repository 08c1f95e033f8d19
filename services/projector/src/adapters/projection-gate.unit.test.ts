import { describe, expect, it } from 'vitest';
import type { ProjectionState } from '@audit/shared/projection';
import { ProjectionGate } from './projection-gate.js';

function gate(states: ProjectionState[]) {
  let i = 0;
  const g = new ProjectionGate({
    store: { read: async () => ({ ...states[Math.min(i++, states.length - 1)]!, changedAt: 0 }) },
    clock: () => 0,
    graceMs: 1000,
    pollMs: 1,
    shouldStop: () => false,
  });
  return g;
}

describe('ProjectionGate', () => {
  it('writes to the live generation, also while a replay builds the next one', async () => {
    const g = gate([{ phase: 'build', live: 2, target: 3 }]);
    expect(await g.write(async (t) => t.events)).toBe('audit_events_g2');
  });

  it('holds a write during a pause and lets it through to the new generation after the switch', async () => {
    const g = gate([
      { phase: 'pause', live: 1, target: 2, until: 60_000 },
      { phase: 'drain', live: 1, target: 2, until: 60_000 },
      { phase: 'live', live: 2 },
    ]);
    expect(await g.write(async (t) => t.events)).toBe('audit_events_g2');
  });

  it('counts a write as in flight from before it reads the state', async () => {
    let release!: () => void;
    const read = new Promise<void>((r) => (release = r));
    const g = new ProjectionGate({
      store: {
        read: async () => {
          await read;
          return { phase: 'live', live: 1, changedAt: 0 };
        },
      },
      clock: () => 0,
      graceMs: 0,
      pollMs: 1,
      shouldStop: () => false,
    });
    const writing = g.write(async () => 'done');
    expect(g.idle).toBe(false);
    release();
    await writing;
    expect(g.idle).toBe(true);
  });

  it('writes on the state the watcher observed, without asking the store', async () => {
    let asked = 0;
    const g = new ProjectionGate({
      store: {
        read: async () => {
          asked += 1;
          return { phase: 'live', live: 1, changedAt: 0 };
        },
      },
      clock: () => 0,
      graceMs: 0,
      pollMs: 1,
      shouldStop: () => false,
    });
    g.observe({ phase: 'live', live: 4 });
    expect(await g.write(async (t) => t.events)).toBe('audit_events_g4');
    expect(asked).toBe(0);
  });
});
