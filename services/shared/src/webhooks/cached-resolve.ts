import { lookup as systemLookup, promises as dns } from 'node:dns';
import CacheableLookup from 'cacheable-lookup';
import { withDeadline } from '../platform/deadline.js';
import type { Resolve } from './webhook-target.js';

// Caps a record's TTL: an endpoint moved to another address is followed within this many seconds at most.
const MAX_TTL_S = 300;
// A name with no address is asked again after this long, not at every delivery to it.
const ERROR_TTL_S = 1;
// One try of a DNS query; two tries fit in the attempt's deadline of at least a second.
const MAX_TRY_MS = 2000;

export interface CachedResolveOptions {
  /** The delivery timeout: a query never outlasts the attempt it serves. */
  timeoutMs: number;
  /** Tests answer from here instead of the DNS servers. */
  resolver?: dns.Resolver;
  /** Asked when the DNS servers know no address (localhost, the hosts file); the system's by default. */
  lookup?: typeof systemLookup;
}

/**
 * Name resolution for deliveries: the DNS servers asked directly (c-ares, off the libuv threadpool that a hanging
 * lookup would block for every endpoint), their answers kept for their TTL, and concurrent questions for one name
 * asked once. cacheable-lookup does this; the guard still checks every answer at every delivery, cached or not.
 */
export function cachedResolve(options: CachedResolveOptions): Resolve {
  const cache = new CacheableLookup({
    resolver:
      options.resolver ?? new dns.Resolver({ timeout: Math.min(options.timeoutMs, MAX_TRY_MS), tries: 2 }),
    lookup: options.lookup ?? systemLookup,
    maxTtl: MAX_TTL_S,
    errorTtl: ERROR_TTL_S,
  });
  return async (host) =>
    (await cache.lookupAsync(host, { all: true })).map(({ address, family }) => ({ address, family }));
}

/**
 * A resolver whose every answer comes within `ms`, or fails: a question the DNS servers leave unanswered must not
 * hold a request (the gateway checks webhook targets while a client waits).
 */
export function resolveWithin(resolve: Resolve, ms: number): Resolve {
  return (host) => withDeadline(resolve(host), ms, () => new Error(`no answer for ${host} within ${ms} ms`));
}
