import { CappedMap } from '@audit/shared/platform';

export interface AuthThrottleOptions {
  /** Failed authentications an address may make at once. */
  burst: number;
  /** How fast that allowance comes back. */
  refillPerMinute: number;
  /**
   * How long a throttled request waits for its 429: a flood over a few connections then costs almost nothing
   * (docs/api-keys.md "Failed authentication").
   */
  holdMs: number;
  /** Addresses remembered; a flood from more addresses forgets the oldest. */
  maxAddresses?: number;
  now?: () => number;
}

/**
 * The bucket an address spends from: an IPv4 address its own, an IPv6 address its /64 (one subscriber's
 * network), or one host could make endless addresses.
 */
export function addressBucket(address: string): string {
  if (!address.includes(':')) return address;
  const width = (part: string) => (part.includes('.') ? 2 : 1);
  const [head = '', tail] = address.split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const gap = tail === undefined ? 0 : 8 - [...front, ...back].reduce((n, p) => n + width(p), 0);
  const groups = [...front, ...Array<string>(Math.max(0, gap)).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => (g.includes('.') ? g : parseInt(g || '0', 16).toString(16)))
    .join(':')}::/64`;
}

/**
 * Failed authentications per client address, as a token bucket: an address that spent its allowance gets 429
 * with the seconds until it may try again, unless its key is one the gateway holds in memory (docs/api-keys.md
 * "Failed authentication"). Only failures spend it, so a client that authenticates is never slowed by it.
 */
export function authThrottle(opts: AuthThrottleOptions) {
  const now = opts.now ?? Date.now;
  const buckets = new CappedMap<string, { tokens: number; at: number }>(opts.maxAddresses ?? 100_000);
  const perMs = opts.refillPerMinute / 60_000;

  const tokensOf = (address: string, t: number) => {
    const bucket = buckets.get(addressBucket(address));
    return bucket ? Math.min(opts.burst, bucket.tokens + (t - bucket.at) * perMs) : opts.burst;
  };

  return {
    /** Null while the address may try; otherwise the whole seconds until it may. */
    retryAfterS(address: string): number | null {
      const tokens = tokensOf(address, now());
      return tokens >= 1 ? null : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    },
    failed(address: string): void {
      const t = now();
      // Never below empty: failures that arrived together must not push the next try minutes away.
      buckets.set(addressBucket(address), { tokens: Math.max(0, tokensOf(address, t) - 1), at: t });
    },
  };
}

export type AuthThrottle = ReturnType<typeof authThrottle>;
