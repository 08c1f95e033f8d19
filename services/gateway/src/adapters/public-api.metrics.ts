import { Counter, type Registry } from '@audit/shared/platform';
import { AUTH_FAILURES } from '../domain/authenticate.js';
import type { PublicApiMeter } from '../plugins/public-api.plugin.js';

const CLASSES = ['read', 'write', 'failed_auth'] as const;

/** The public API's refusals as counters; every label value is one of a fixed few (no keys, tenants or paths). */
export function publicApiMetrics(registry: Registry): PublicApiMeter {
  const authFailures = new Counter({
    name: 'auth_failures_total',
    help: 'Requests refused with 401, by why the key was refused',
    labelNames: ['reason'],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: "Requests refused with 429: the key's read or write bucket was empty, or the address failed auth too often",
    labelNames: ['class'],
    registers: [registry],
  });
  // Every series exists from the start: a rate over a series that appears with its first increment misses it.
  for (const reason of AUTH_FAILURES) authFailures.inc({ reason }, 0);
  for (const cls of CLASSES) rateLimited.inc({ class: cls }, 0);
  return {
    authRefused: (reason) => authFailures.inc({ reason }),
    rateLimited: (cls) => rateLimited.inc({ class: cls }),
  };
}
