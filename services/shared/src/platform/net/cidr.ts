import { isIP } from 'node:net';

/** `a.b.c.d/n` or `v6::/n`, or a bare address (a single host). Returns the normalized CIDR or null. */
export function parseCidr(text: string): string | null {
  const [address, bits, ...rest] = text.trim().split('/');
  // A zone id (fe80::1%eth0) names an interface of one host, not a network: refused like any other non-CIDR.
  if (!address || rest.length > 0 || address.includes('%')) return null;
  const family = isIP(address);
  if (family === 0) return null;
  const max = family === 4 ? 32 : 128;
  if (bits === undefined) return `${address}/${max}`;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  return `${address}/${Number(bits)}`;
}
