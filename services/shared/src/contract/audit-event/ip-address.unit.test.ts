import { describe, expect, it } from 'vitest';
import { canonicalIp } from './ip-address.js';

describe('canonicalIp', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['0:0:0:0:0:FFFF:0a00:0001', '10.0.0.1'],
    ['0:0::1', '::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['::', '::'],
    // IPv4-compatible (deprecated) is another address than IPv4-mapped: it stays IPv6.
    ['::1.2.3.4', '::102:304'],
    ['FE80::0:1%eth0', 'fe80::1%eth0'],
  ])('%s is %s', (given, canonical) => {
    expect(canonicalIp(given)).toBe(canonical);
    expect(canonicalIp(canonical)).toBe(canonical);
  });

  it.each(['', 'localhost', '1.2.3.04', '10.0.0.256', '::g', '1:2:3:4:5:6:7:8:9', ' 10.0.0.1'])(
    'refuses %j',
    (text) => expect(canonicalIp(text)).toBeNull(),
  );
});
