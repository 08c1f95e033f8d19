import { CappedMap } from '@audit/shared';

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
 * Failed authentications per client address, as a token bucket: an address that spent its allowance gets 429
 * with the seconds until it may try again, before its key is even read (docs/api-keys.md "Failed
 * authentication"). Only failures spend it, so a client that authenticates is never slowed by it.
 */
export function authThrottle(opts: AuthThrottleOptions) {
  const now = opts.now ?? Date.now;
  const buckets = new CappedMap<string, { tokens: number; at: number }>(opts.maxAddresses ?? 100_000);
  const perMs = opts.refillPerMinute / 60_000;

  const tokensOf = (address: string, t: number) => {
    const bucket = buckets.get(address);
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
      buckets.set(address, { tokens: tokensOf(address, t) - 1, at: t });
    },
  };
}

export type AuthThrottle = ReturnType<typeof authThrottle>;
