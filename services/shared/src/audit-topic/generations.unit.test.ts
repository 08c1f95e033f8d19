import { describe, expect, it } from 'vitest';
import {
  checkGrowth,
  topicGeneration,
  generationTopic,
  readableThrough,
  writableTopic,
  type Generation,
} from './generations.js';

const base = 'p.audit.events.v1';
const gen = (generation: number, partitions: number, previousEnds: bigint[] | null): Generation => ({
  generation,
  topic: generationTopic(base, generation),
  partitions,
  previousEnds,
});

describe('generation names', () => {
  it('names generation 1 as the base topic and later ones with a suffix, and reads them back', () => {
    expect(generationTopic(base, 1)).toBe(base);
    expect(generationTopic(base, 3)).toBe(`${base}.g3`);
    expect(topicGeneration(base, base)).toBe(1);
    expect(topicGeneration(base, `${base}.g3`)).toBe(3);
    for (const other of [
      `${base}.g1`,
      `${base}.g0`,
      `${base}.g03`,
      `${base}.gx`,
      `${base}.projector.dlq`,
      'x',
    ])
      expect(topicGeneration(base, other)).toBeNull();
    expect(() => generationTopic(base, 0)).toThrow(RangeError);
  });
});

describe('writableTopic', () => {
  it('is the oldest open generation', () => {
    const states = [
      { topic: 'b', generation: 2, open: false },
      { topic: 'a', generation: 1, open: true },
    ];
    expect(writableTopic(states)).toBe('a');
    expect(
      writableTopic([
        { ...states[0]!, open: true },
        { ...states[1]!, open: false },
      ]),
    ).toBe('b');
  });

  it('is the newest while none is open (between the seal and the opening)', () => {
    expect(
      writableTopic([
        { topic: 'a', generation: 1, open: false },
        { topic: 'b', generation: 2, open: false },
      ]),
    ).toBe('b');
  });
});

describe('readableThrough', () => {
  const committed = (entries: [string, [number, bigint][]][]) =>
    new Map(entries.map(([topic, offsets]) => [topic, new Map(offsets)]));

  it('reads generation 1 alone until generation 2 is sealed', () => {
    expect(readableThrough([gen(1, 2, null)], new Map())).toBe(1);
    expect(
      readableThrough(
        [gen(1, 2, null), gen(2, 4, null)],
        committed([
          [
            base,
            [
              [0, 9n],
              [1, 9n],
            ],
          ],
        ]),
      ),
    ).toBe(1);
  });

  it('opens a generation once every partition of the one before is committed up to its seal', () => {
    const gens = [gen(1, 2, null), gen(2, 4, [5n, 0n])];
    expect(readableThrough(gens, committed([[base, [[0, 4n]]]]))).toBe(1);
    // A partition sealed empty needs no commit.
    expect(readableThrough(gens, committed([[base, [[0, 5n]]]]))).toBe(2);
  });

  it('goes through several generations only in order', () => {
    const gens = [gen(3, 8, [1n, 0n, 0n, 0n]), gen(1, 2, null), gen(2, 4, [2n, 2n])];
    const g2 = generationTopic(base, 2);
    expect(readableThrough(gens, committed([[g2, [[0, 1n]]]]))).toBe(1);
    const firstDone: [string, [number, bigint][]] = [
      base,
      [
        [0, 2n],
        [1, 2n],
      ],
    ];
    expect(readableThrough(gens, committed([firstDone]))).toBe(2);
    expect(readableThrough(gens, committed([firstDone, [g2, [[0, 1n]]]]))).toBe(3);
  });

  it('stops at a gap in the generations', () => {
    expect(readableThrough([gen(1, 2, null), gen(3, 4, [0n, 0n])], new Map())).toBe(1);
  });
});

describe('checkGrowth', () => {
  it('takes only more partitions', () => {
    expect(checkGrowth(6, 12)).toBeNull();
    expect(checkGrowth(6, 7)).toBeNull();
    expect(checkGrowth(6, 6)).toMatch(/more than that/);
    expect(checkGrowth(6, 0)).toMatch(/positive integer/);
    expect(checkGrowth(6, 2.5)).toMatch(/positive integer/);
  });
});
