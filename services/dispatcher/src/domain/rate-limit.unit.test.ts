import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slotIntervalMs } from './rate-limit.js';

describe('slotIntervalMs', () => {
  it('never lets more than the limit start within any second, with 350 ms of jitter to spare (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (perSecond) => {
        const interval = slotIntervalMs(perSecond);
        // perSecond + 1 starts span perSecond intervals: more than a second and 350 ms.
        expect(perSecond * interval).toBeGreaterThanOrEqual(1350 - 1e-6);
        expect(interval).toBeLessThan((1000 / perSecond) * 1.36);
      }),
    );
  });
});
