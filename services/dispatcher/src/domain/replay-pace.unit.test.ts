import { describe, expect, it } from 'vitest';
import { paceWaitMs } from './replay-pace.js';

describe('paceWaitMs', () => {
  it('waits until the deliveries handed on fit the pace since the start, never a negative time', () => {
    expect(paceWaitMs(10, 0, 100)).toBe(100);
    expect(paceWaitMs(10, 100, 100)).toBe(0);
    expect(paceWaitMs(10, 5000, 100)).toBe(0);
    expect(paceWaitMs(250, 1000, 100)).toBe(1500);
  });
});
