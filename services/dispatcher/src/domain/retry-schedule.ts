export interface RetryPolicy {
  /** Delay before retry n + 1 (index n), measured from the failed attempt (docs/contract.md "Delivery"). */
  delaysMs: readonly number[];
  /** Uniform jitter, as a fraction of the delay (0.2: ±20 %). */
  jitter: number;
  /** The longest a receiver's Retry-After may hold a retry back (docs/webhooks.md "Receiver signals"). */
  retryAfterMaxMs: number;
}

/** Where a retry waits: a tier's topic (1-based), and when its record is due there. */
export interface Hop {
  tier: number;
  dueAt: number;
}

/**
 * What follows a failed attempt `attempt` (1-based) at `failedAt`: the retry, or terminal once every delay is
 * used (attempts = delays + 1). The retry waits in tier `attempt`, due after that tier's delay with jitter;
 * `random` is in [0, 1). When the receiver asked for more time (`retryAfterMs`, from Retry-After on a 429 or a
 * 503), the retry is not made before then (`notBefore`, at most `retryAfterMaxMs` on), and it waits there in hops
 * (see `hop`); it is still attempt `attempt + 1`.
 */
export type NextStep = ({ kind: 'retry'; notBefore: number | null } & Hop) | { kind: 'terminal' };

export function afterFailure(
  policy: RetryPolicy,
  attempt: number,
  failedAt: number,
  random: number,
  retryAfterMs: number | null = null,
): NextStep {
  const delay = policy.delaysMs[attempt - 1];
  if (delay === undefined) return { kind: 'terminal' };
  const factor = 1 + policy.jitter * (2 * random - 1);
  const dueAt = failedAt + Math.round(delay * factor);
  const notBefore =
    retryAfterMs === null ? null : failedAt + Math.min(Math.max(0, retryAfterMs), policy.retryAfterMaxMs);
  if (notBefore === null || notBefore <= dueAt)
    return { kind: 'retry', tier: attempt, dueAt, notBefore: null };
  return { kind: 'retry', ...hop(policy, notBefore, failedAt), notBefore };
}

/**
 * The next wait of a retry held back until `notBefore`. A tier's records wait in order (the consumer pauses on the
 * first one until it is due), so a record due much later than its tier's delay would hold up every record behind
 * it. Instead the retry hops: it waits in the longest tier whose whole jitter range still ends before
 * `notBefore`, due at the earliest any record of that tier put there now could be (so it never holds up one),
 * and when it comes out it is sent on to the next hop; the last hop, under the first tier's delay, is due at
 * `notBefore` itself.
 */
export function hop(policy: RetryPolicy, notBefore: number, now: number): Hop {
  const left = notBefore - now;
  for (let tier = policy.delaysMs.length; tier >= 1; tier--) {
    const delay = policy.delaysMs[tier - 1]!;
    if (Math.ceil(delay * (1 + policy.jitter)) <= left) {
      return { tier, dueAt: now + Math.floor(delay * (1 - policy.jitter)) };
    }
  }
  return { tier: 1, dueAt: notBefore };
}
