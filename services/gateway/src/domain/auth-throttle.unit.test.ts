import { describe, expect, it } from 'vitest';
import { addressBucket, authThrottle } from './auth-throttle.js';

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

  it('does not let failures that arrived together push the next try further than one refill', () => {
    const throttle = authThrottle({ burst: 2, refillPerMinute: 60, holdMs: 0, now: () => 0 });
    for (let i = 0; i < 200; i += 1) throttle.failed('a');
    expect(throttle.retryAfterS('a')).toBe(1);
  });

  it('counts an IPv6 network /64 as one address', () => {
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('2001:0db8:0001:0002:0003:0004:0005:0006')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('203.0.113.9')).toBe('203.0.113.9');
    const throttle = authThrottle({ burst: 1, refillPerMinute: 1, holdMs: 0, now: () => 0 });
    throttle.failed('2001:db8:1:2::1');
    expect(throttle.retryAfterS('2001:db8:1:2::2')).not.toBeNull();
    expect(throttle.retryAfterS('2001:db8:1:3::1')).toBeNull();
  });
});
