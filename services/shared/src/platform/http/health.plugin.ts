import type { FastifyInstance } from 'fastify';
import { withDeadline } from '../deadline.js';
import { loggableError } from '../logger.js';
import { recentResult } from '../recent-result.js';

export type ReadinessCheck = () => Promise<unknown>;

export interface HealthOptions {
  /** A check that has not answered within this long has failed. */
  deadlineMs?: number;
  /** An answer is given again for this long: the endpoint is unauthenticated, and each check asks a dependency. */
  ttlMs?: number;
  clock?: () => number;
}

/**
 * `/healthz`: the process answers. `/readyz`: every dependency answered within its deadline, asked at most once a
 * second however many probes call, concurrent ones sharing one round of checks.
 */
export function registerHealth(
  app: FastifyInstance,
  checks: Record<string, ReadinessCheck>,
  { deadlineMs = 2000, ttlMs = 1000, clock = Date.now }: HealthOptions = {},
) {
  const readiness = recentResult(
    () =>
      Promise.all(
        Object.entries(checks).map(async ([name, check]) => {
          try {
            await withDeadline(check(), deadlineMs, () => new Error(`no answer within ${deadlineMs} ms`));
            return [name, 'ok'] as const;
          } catch (err) {
            app.log.warn({ check: name, err: loggableError(err) }, 'readiness check failed');
            return [name, 'failed'] as const;
          }
        }),
      ),
    ttlMs,
    clock,
  );
  // Probes poll often; their request logs would drown everything else.
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  // Answers say only ok or failed: these endpoints are unauthenticated, and dependency errors name hosts and users.
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const results = await readiness();
    const ready = results.every(([, state]) => state === 'ok');
    if (!ready) void reply.code(503).header('retry-after', '5');
    return { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) };
  });
}
