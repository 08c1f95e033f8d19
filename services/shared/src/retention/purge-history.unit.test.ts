import { describe, expect, it } from 'vitest';
import { isLeftOut, wasPurged, type HoldSpan, type HoldScope, type PurgeHistory } from './index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T = Date.UTC(2020, 0, 1);
// Two runs: the first deleted under T + 10 h from day 100, the second under T + 20 h from day 200.
const DAY_100 = T + 100 * DAY;
const DAY_200 = T + 200 * DAY;
const runs = [
  { deletingSince: DAY_100, purgedBefore: T + 10 * HOUR },
  { deletingSince: DAY_200, purgedBefore: T + 20 * HOUR },
];
const history = (holds: HoldSpan[] = []): PurgeHistory => ({ purgedBefore: T + 20 * HOUR, runs, holds });
const hold = (scope: HoldScope, createdAt: number, releasedAt: number | null = null): HoldSpan => ({
  scope,
  createdAt,
  releasedAt,
});
const event = (ms: number, ingestedAt: number, user = 'u-1') => ({
  timestamp: ms,
  ingested_at: ingestedAt,
  user_id: user,
  resource_id: 'r-1',
  patient_id: '',
});

describe('isLeftOut', () => {
  it('leaves out what arrived before a run under its horizon, unless a hold in force when it began covered it', () => {
    expect(isLeftOut(history(), event(T, T))).toBe(true);
    expect(isLeftOut(history(), event(T + 20 * HOUR, T))).toBe(false);
    expect(isLeftOut(history([hold({ user_id: 'u-1' }, DAY_100 - 1)]), event(T, T))).toBe(false);
    expect(isLeftOut(history([hold({ user_id: 'u-2' }, DAY_100 - 1)]), event(T, T))).toBe(true);
  });

  it('keeps out what a run removed, whatever hold was made after it: a replay brings none of it back', () => {
    expect(isLeftOut(history([hold({ user_id: 'u-1' }, DAY_100 + 1)]), event(T, T))).toBe(true);
    // Kept by the first run, the hold released before the second: the second removed it.
    expect(isLeftOut(history([hold({}, T, DAY_100 + 1)]), event(T, T))).toBe(true);
    expect(isLeftOut(history([hold({}, T)]), event(T, T))).toBe(false);
  });

  it('decides on what arrives after a run by the holds in force at its arrival', () => {
    const late = event(T, DAY_200 + DAY);
    expect(isLeftOut(history(), late)).toBe(true);
    expect(isLeftOut(history([hold({ user_id: 'u-1' }, DAY_200 + 1)]), late)).toBe(false);
    expect(isLeftOut(history([hold({ user_id: 'u-1' }, DAY_200 + 2 * DAY)]), late)).toBe(true);
  });

  it('weighs each run at its own time: the second run passes what the first did not', () => {
    const between = hold({ user_id: 'u-1' }, DAY_100 + 1);
    expect(isLeftOut(history([between]), event(T + 15 * HOUR, T))).toBe(false);
    expect(isLeftOut(history([between]), event(T + 5 * HOUR, T))).toBe(true);
  });
});

describe('wasPurged', () => {
  it('is false for a leaf no run passed, and for one without a time', () => {
    expect(wasPurged({ purgedBefore: null, runs: [], holds: [] }, T)).toBe(false);
    expect(wasPurged(history(), null)).toBe(false);
    expect(wasPurged(history(), T + 20 * HOUR)).toBe(false);
  });

  it('is true under a run that no hold over its whole time has kept it from since', () => {
    expect(wasPurged(history(), T)).toBe(true);
    expect(wasPurged(history(), T + 20 * HOUR - 1)).toBe(true);
    expect(wasPurged(history([hold({}, DAY_100 + 1)]), T)).toBe(true);
    expect(wasPurged(history([hold({}, T, DAY_200 + 1)]), T)).toBe(true);
    expect(wasPurged(history([hold({ since: T + HOUR }, T)]), T)).toBe(true);
  });

  it('is false where such a hold has been in force since the first run that passed it', () => {
    expect(wasPurged(history([hold({}, DAY_100 - 1)]), T)).toBe(false);
    expect(wasPurged(history([hold({ since: T, until: T + HOUR }, DAY_100)]), T + 30 * 60_000)).toBe(false);
    expect(wasPurged(history([hold({}, DAY_100 + 1)]), T + 15 * HOUR)).toBe(false);
  });

  it('takes a hold narrowed to a user, a resource or a patient as keeping nothing it can weigh', () => {
    for (const scope of [{ user_id: 'u-1' }, { resource_id: 'r-1' }, { patient_id: 'p-1' }]) {
      expect(wasPurged(history([hold(scope, T)]), T)).toBe(true);
    }
  });
});
