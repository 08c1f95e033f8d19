import { isIP } from 'node:net';

const MAPPED_V4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * The one text of an IP address (docs/api.md, "Filters"), so that every spelling of an address finds the same
 * events: IPv4 as dotted decimal; IPv6 compressed and lowercase as RFC 5952 prescribes (through the WHATWG URL
 * parser built into Node); an IPv4-mapped IPv6 address as the IPv4 address it carries, since a dual-stack server
 * reports an IPv4 client that way; a zone id kept as given. Null for anything that is not an address.
 */
export function canonicalIp(text: string): string | null {
  const version = isIP(text);
  if (version === 4) return text;
  if (version !== 6) return null;
  const zoneAt = text.indexOf('%');
  const address = zoneAt < 0 ? text : text.slice(0, zoneAt);
  const zone = zoneAt < 0 ? '' : text.slice(zoneAt);
  const compressed = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const mapped = MAPPED_V4.exec(compressed);
  if (!mapped) return compressed + zone;
  const word = (group: string) => parseInt(group, 16);
  const [hi, lo] = [word(mapped[1]!), word(mapped[2]!)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}${zone}`;
}
