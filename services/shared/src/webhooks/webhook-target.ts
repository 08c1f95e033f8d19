import { createHash } from 'node:crypto';
import { isIP, type BlockList } from 'node:net';
import { describePorts, portAllowed, refusedRange, type PortRanges } from './target-policy.js';

export const MAX_URL_LENGTH = 2048;

/** Name resolution as the guard sees it; tests inject one that answers what they want, when they want. */
export type Resolve = (host: string) => Promise<readonly { address: string; family: number }[]>;

export interface TargetRules {
  allowHttp: boolean;
  allowed: BlockList;
  /** The ports a URL may name (its scheme's when it names none). */
  ports: PortRanges;
}

type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The URL's own rules (docs/webhooks.md): https, at most 2048 characters, no user-info, an allowed port. */
export function parseWebhookUrl(text: string, rules: Pick<TargetRules, 'allowHttp' | 'ports'>): Checked<URL> {
  if (text.length > MAX_URL_LENGTH)
    return { ok: false, reason: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    return { ok: false, reason: rules.allowHttp ? 'must use https or http' : 'must use https' };
  }
  if (url.username || url.password) return { ok: false, reason: 'must not contain user information' };
  if (!url.hostname) return { ok: false, reason: 'must name a host' };
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!portAllowed(rules.ports, port))
    return { ok: false, reason: `must use a port of ${describePorts(rules.ports)}` };
  return { ok: true, value: url };
}

/**
 * Every address the URL's host stands for, provided none of them is in a refused range: a name that answers
 * with one public and one private address is refused, since a connection could reach either.
 */
export async function checkTarget(
  url: URL,
  rules: TargetRules,
  resolve: Resolve,
): Promise<Checked<string[]>> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch {
      return { ok: false, reason: `host ${host} could not be resolved` };
    }
    if (addresses.length === 0) return { ok: false, reason: `host ${host} could not be resolved` };
  }
  for (const address of addresses) {
    const range = refusedRange(address, rules.allowed);
    if (range)
      return { ok: false, reason: `host ${host} is or resolves to ${address}, a refused ${range} address` };
  }
  return { ok: true, value: addresses };
}

/**
 * A webhook URL as the audit trail and logs may show it: origin and path, without the query or fragment, which
 * receivers sometimes use for tokens; the digest still tells two URLs apart.
 */
export function describeTarget(url: string): { target: string; url_sha256: string } {
  const parsed = new URL(url);
  return {
    target: `${parsed.origin}${parsed.pathname}`,
    url_sha256: createHash('sha256').update(url).digest('hex'),
  };
}

/**
 * The URL as a reader who may not change the endpoint sees it: its query (where receivers' tokens usually are) and
 * any credentials taken out, the rest as the trail's `target` shows it (docs/webhooks.md "Endpoint API").
 */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}${parsed.search ? '?REDACTED' : ''}`;
}
