import { BlockList, isIP } from 'node:net';

/** IPv4 peers often arrive as IPv4-mapped IPv6 (`::ffff:203.0.113.7`); rules are written for the IPv4 form. */
export function normalizeIp(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A set of CIDRs (as stored: `a.b.c.d/n`, `v6::/n`) that answers whether an address is inside. */
export function cidrSet(cidrs: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/');
    const family = isIP(net!);
    if (family === 0) continue;
    list.addSubnet(net!, Number(bits ?? (family === 4 ? 32 : 128)), family === 4 ? 'ipv4' : 'ipv6');
  }
  return (address) => {
    const ip = normalizeIp(address);
    const family = isIP(ip);
    return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * The client address: the socket peer, unless the peer is a trusted proxy; then the right-most address of
 * X-Forwarded-For that is not a trusted proxy. Anyone else's X-Forwarded-For is ignored
 * (docs/contract.md "API keys").
 */
export function clientIp(
  peer: string,
  forwardedFor: string | undefined,
  trusted: (address: string) => boolean,
): string {
  let client = normalizeIp(peer);
  if (!trusted(client) || !forwardedFor) return client;
  const hops = forwardedFor.split(',').map((h) => normalizeIp(h.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    if (isIP(hops[i]!) === 0) return client;
    client = hops[i]!;
    if (!trusted(client)) return client;
  }
  return client;
}
