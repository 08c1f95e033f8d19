import { describe, expect, it } from 'vitest';
import { authThrottle } from './auth-throttle.js';

describe('authThrottle', () => {
  it('lets an address fail `burst` times, then names when it may try again', () => {
    let t = 0;
    const throttle = authThrottle({ burst: 3, refillPerMinute: 6, holdMs: 0, now: () => t });
    for (let i = 0; i < 3; i += 1) {
      expect(throttle.retryAfterS('10.0.0.1')).toBeNull();
      throttle.failed('10.0.0.1');
    }
    expect(throttle.retryAfterS('10.0.0.1')).toBe(10);
    expect(throttle.retryAfterS('10.0.0.2')).toBeNull();
    t = 4_000;
    expect(throttle.retryAfterS('10.0.0.1')).toBe(6);
    t = 10_000;
    expect(throttle.retryAfterS('10.0.0.1')).toBeNull();
  });

  it('never holds more than the burst, however long an address was quiet', () => {
    let t = 0;
    const throttle = authThrottle({ burst: 2, refillPerMinute: 60, holdMs: 0, now: () => t });
    throttle.failed('a');
    t = 3_600_000;
    throttle.failed('a');
    throttle.failed('a');
    expect(throttle.retryAfterS('a')).toBe(1);
  });
});
