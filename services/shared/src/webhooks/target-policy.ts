import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../platform/net/cidr.js';

// docs/contract.md "Webhooks": never deliver inside our own or a cloud provider's network. Documentation and
// translation ranges are refused too: no public receiver lives there, and NAT64/6to4/Teredo can embed any IPv4.
const REFUSED: readonly (readonly [cidr: string, name: string])[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  // Azure's platform address (WireServer): public, yet it answers every VM of Azure's own network.
  ['168.63.129.16/32', 'cloud platform'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'NAT64'],
  ['100::/64', 'discard'],
  ['2001::/32', 'Teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

function blockOf(cidr: string): BlockList {
  const list = new BlockList();
  const [address, bits] = cidr.split('/') as [string, string];
  list.addSubnet(address, Number(bits), isIP(address) === 4 ? 'ipv4' : 'ipv6');
  return list;
}

const refused = REFUSED.map(([cidr, name]) => ({ name, block: blockOf(cidr) }));

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, however spelled) is that IPv4 address. */
export function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  // The URL parser prints IPv6 canonically (compressed, lowercase, embedded IPv4 in hex): one form to match.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const hi = parseInt(mapped[1]!, 16);
  const lo = parseInt(mapped[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Ports a webhook URL may name, as inclusive ranges (`WEBHOOK_ALLOW_PORTS`). */
export type PortRanges = readonly (readonly [from: number, to: number])[];

/** The web's ports, and none of the well-known ports of other services below 1024 (SSH, SMTP, LDAP...). */
export const DEFAULT_WEBHOOK_PORTS: PortRanges = [
  [80, 80],
  [443, 443],
  [1024, 65535],
];

/** `80,443,1024-65535` as ranges, or null when an item is not a port or an ascending range of ports. */
export function parsePortRanges(text: string): PortRanges | null {
  const ranges: [number, number][] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(item);
    if (!m) return null;
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    if (from < 1 || to > 65535 || from > to) return null;
    ranges.push([from, to]);
  }
  return ranges;
}

export const portAllowed = (ranges: PortRanges, port: number) =>
  ranges.some(([from, to]) => port >= from && port <= to);

export const describePorts = (ranges: PortRanges) =>
  ranges.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(', ');

export function allowList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`not a CIDR: ${text}`);
    const [address, bits] = cidr.split('/') as [string, string];
    list.addSubnet(address, Number(bits), isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** The refused range an address lies in (unless allowed), or null when a delivery may connect to it. */
export function refusedRange(address: string, allowed: BlockList): string | null {
  // A zone id (fe80::1%eth0) names an interface, not another address: the address itself is what is checked.
  const plain = unmapped(address.replace(/^\[|\]$/g, '').split('%')[0]!);
  const family = isIP(plain);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (allowed.check(plain, type)) return null;
  return refused.find((r) => r.block.check(plain, type))?.name ?? null;
}
