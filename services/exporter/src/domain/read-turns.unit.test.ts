import { describe, expect, it } from 'vitest';
import { readTurns, type Release } from './read-turns.js';

/** Takes a turn for each label in order, noting the order in which they are given. */
function requests(turns: ReturnType<typeof readTurns>, labels: string[]) {
  const given: string[] = [];
  const releases = new Map<string, Release>();
  for (const label of labels) {
    void turns.take(label.split('.')[0]!).then((release) => {
      given.push(label);
      releases.set(label, release);
    });
  }
  return { given, release: (label: string) => releases.get(label)!() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('readTurns', () => {
  it('gives at most its capacity at once, then one turn per waiting tenant in rotation', async () => {
    const turns = readTurns(2);
    // Tenant a asks for many turns first; b and c each for a few, later.
    const r = requests(turns, ['a.1', 'a.2', 'a.3', 'a.4', 'b.1', 'b.2', 'c.1']);
    await settle();
    expect(r.given).toEqual(['a.1', 'a.2']);
    expect(turns.load()).toEqual({ held: 2, waiting: 5 });
    for (const label of ['a.1', 'a.2', 'a.3', 'b.1', 'c.1', 'a.4']) {
      r.release(label);
      await settle();
    }
    expect(r.given).toEqual(['a.1', 'a.2', 'a.3', 'b.1', 'c.1', 'a.4', 'b.2']);
  });

  it('serves a tenant that begins to wait after one turn of each tenant already waiting', async () => {
    const turns = readTurns(1);
    const r = requests(turns, ['a.1', 'a.2', 'a.3', 'b.1', 'b.2']);
    await settle();
    r.release('a.1');
    await settle();
    const late = requests(turns, ['c.1']);
    r.release('a.2');
    await settle();
    r.release('b.1');
    await settle();
    // b and a were waiting when c began to: one turn each, then c's.
    r.release('a.3');
    await settle();
    expect([...r.given, ...late.given]).toEqual(['a.1', 'a.2', 'b.1', 'a.3', 'c.1']);
  });

  it('counts a turn given back twice once', async () => {
    const turns = readTurns(1);
    const r = requests(turns, ['a.1', 'b.1', 'c.1']);
    await settle();
    r.release('a.1');
    r.release('a.1');
    await settle();
    expect(r.given).toEqual(['a.1', 'b.1']);
    expect(turns.load()).toEqual({ held: 1, waiting: 1 });
  });
});
