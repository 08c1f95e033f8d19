export type RequestClass = 'read' | 'write';

export interface RateLimits {
  readPerMinute: number;
  writePerMinute: number;
}

/** Spec: GET counts as a read; POST and DELETE as writes. */
export const requestClass = (method: string): RequestClass =>
  method === 'GET' || method === 'HEAD' ? 'read' : 'write';

export const capacityOf = (limits: RateLimits, cls: RequestClass) =>
  cls === 'read' ? limits.readPerMinute : limits.writePerMinute;

/**
 * Whole seconds until `tokens` grows to `target` at capacity per minute; at least 1
 * (docs/contract.md "Rate limits").
 */
export function secondsUntil(tokens: number, target: number, capacity: number): number {
  return Math.max(1, Math.ceil(((target - tokens) * 60) / capacity));
}

/** `RateLimit-*` headers (IETF draft): the budget, what is left of it, and when it is full again. */
export function rateLimitHeaders(capacity: number, remaining: number): Record<string, string> {
  return {
    'ratelimit-limit': String(capacity),
    'ratelimit-remaining': String(Math.floor(remaining)),
    'ratelimit-reset': String(remaining >= capacity ? 0 : secondsUntil(remaining, capacity, capacity)),
  };
}
