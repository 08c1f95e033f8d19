import { describe, expect, it } from 'vitest';
import {
  allowList,
  describePorts,
  parsePortRanges,
  portAllowed,
  refusedRange,
  unmapped,
} from './target-policy.js';

const none = allowList([]);

describe('refusedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['168.63.129.16', 'cloud platform'],
    ['::ffff:168.63.129.16', 'cloud platform'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['fd00:ec2::254', 'unique-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:0:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['2002:7f00:1::', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
  ])('refuses %s (%s)', (address, name) => {
    expect(refusedRange(address, none)).toBe(name);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
  ])('lets the public address %s through', (address) => expect(refusedRange(address, none)).toBeNull());

  it('lets an operator open listed ranges only', () => {
    const dev = allowList(['127.0.0.0/8', '::1/128']);
    expect(refusedRange('127.0.0.1', dev)).toBeNull();
    expect(refusedRange('::ffff:127.0.0.1', dev)).toBeNull();
    expect(refusedRange('::1', dev)).toBeNull();
    expect(refusedRange('10.0.0.1', dev)).toBe('private');
    expect(refusedRange('169.254.169.254', dev)).toBe('link-local (cloud metadata)');
  });

  it('refuses what is not an address at all', () => {
    expect(refusedRange('localhost', none)).toBe('not an IP address');
    expect(refusedRange('', none)).toBe('not an IP address');
  });
});

describe('unmapped', () => {
  it('reads IPv4-mapped IPv6 in its spellings', () => {
    expect(unmapped('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(unmapped('::FFFF:0102:0304')).toBe('1.2.3.4');
    expect(unmapped('::ffff:0:102:304')).toBe('1.2.3.4');
    expect(unmapped('0:0:0:0:0:ffff:7f00:0001')).toBe('127.0.0.1');
    expect(unmapped('0000:0000:0000:0000:0000:FFFF:169.254.169.254')).toBe('169.254.169.254');
    expect(unmapped('2001:DB8:0:0::1')).toBe('2001:db8::1');
  });
});

describe('port ranges', () => {
  it('parse, answer and describe an operator list', () => {
    const ranges = parsePortRanges(' 443, 8000-8999 ,80')!;
    expect(describePorts(ranges)).toBe('443, 8000-8999, 80');
    expect([80, 443, 8000, 8999].every((p) => portAllowed(ranges, p))).toBe(true);
    expect([22, 79, 444, 7999, 9000].some((p) => portAllowed(ranges, p))).toBe(false);
  });

  it.each(['', '0', '65536', '443-80', 'https', '1-2-3', '443,'])('refuse %j', (text) => {
    expect(parsePortRanges(text)).toBeNull();
  });
});
