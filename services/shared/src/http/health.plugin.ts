import type { FastifyInstance } from 'fastify';
import { withDeadline } from '../deadline.js';
import { loggableError } from '../logger.js';

export type ReadinessCheck = () => Promise<unknown>;

/** `/healthz`: the process answers. `/readyz`: every dependency answered within its deadline. */
export function registerHealth(
  app: FastifyInstance,
  checks: Record<string, ReadinessCheck>,
  deadlineMs = 2000,
) {
  // Probes poll often; their request logs would drown everything else.
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  // Answers say only ok or failed: these endpoints are unauthenticated, and dependency errors name hosts and users.
  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withDeadline(check(), deadlineMs, () => new Error(`no answer within ${deadlineMs} ms`));
          return [name, 'ok'] as const;
        } catch (err) {
          request.log.warn({ check: name, err: loggableError(err) }, 'readiness check failed');
          return [name, 'failed'] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    if (!ready) void reply.code(503).header('retry-after', '5');
    return { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) };
  });
}
