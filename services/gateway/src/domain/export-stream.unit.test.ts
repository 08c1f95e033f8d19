import { describe, expect, it } from 'vitest';
import { capByWholeMilliseconds, type StreamOutcome } from './export-stream.js';

async function run(timestamps: string[], cap: number) {
  const outcome: StreamOutcome = { count: 0, truncated: false };
  async function* source() {
    for (const [i, timestamp] of timestamps.entries()) yield { timestamp, i };
  }
  const out: number[] = [];
  for await (const e of capByWholeMilliseconds(source(), outcome, cap)) out.push(e.i);
  return { out, outcome };
}

describe('capByWholeMilliseconds', () => {
  it('passes everything up to the cap', async () => {
    expect(await run(['c', 'b', 'a'], 3)).toEqual({
      out: [0, 1, 2],
      outcome: { count: 3, truncated: false },
    });
  });

  it('stops before a millisecond that would pass the cap, keeping it whole for the next call', async () => {
    expect(await run(['d', 'c', 'b', 'b', 'a'], 3)).toEqual({
      out: [0, 1],
      outcome: { count: 2, truncated: true },
    });
    expect(await run(['c', 'b', 'a', 'z'], 3)).toEqual({
      out: [0, 1, 2],
      outcome: { count: 3, truncated: true },
    });
  });

  it('cuts a single millisecond holding more than the cap after its first cap events', async () => {
    expect(await run(['a', 'a', 'a', 'a', 'a'], 3)).toEqual({
      out: [0, 1, 2],
      outcome: { count: 3, truncated: true },
    });
  });

  it('streams nothing from nothing', async () => {
    expect(await run([], 3)).toEqual({ out: [], outcome: { count: 0, truncated: false } });
  });
});
