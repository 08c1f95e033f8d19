import { describe, expect, it } from 'vitest';
import { parseDurations } from './durations.js';

describe('parseDurations', () => {
  it('reads the default schedule and compressed test schedules', () => {
    expect(parseDurations('1m,5m,30m,2h,12h')).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
    expect(parseDurations('200ms, 1s')).toEqual([200, 1000]);
  });

  it.each(['', '1', '1d', '-1s', '0s', '1m,,2m', '1.5s'])('refuses %j', (text) => {
    expect(parseDurations(text)).toBeNull();
  });
});
