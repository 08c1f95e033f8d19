export interface RetryPolicy {
  /** Delay before retry n + 1 (index n), measured from the failed attempt (docs/contract.md "Delivery"). */
  delaysMs: readonly number[];
  /** Uniform jitter, as a fraction of the delay (0.2: ±20 %). */
  jitter: number;
}

export type NextStep = { kind: 'retry'; tier: number; dueAt: number } | { kind: 'terminal' };

/**
 * What follows a failed attempt `attempt` (1-based) at `failedAt`: the retry tier (1-based) and when it is
 * due, or terminal once every delay is used (attempts = delays + 1). `random` is in [0, 1).
 */
export function afterFailure(
  policy: RetryPolicy,
  attempt: number,
  failedAt: number,
  random: number,
): NextStep {
  const delay = policy.delaysMs[attempt - 1];
  if (delay === undefined) return { kind: 'terminal' };
  const factor = 1 + policy.jitter * (2 * random - 1);
  return { kind: 'retry', tier: attempt, dueAt: failedAt + Math.round(delay * factor) };
}
