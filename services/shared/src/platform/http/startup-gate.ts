import type { FastifyInstance } from 'fastify';
import { DependencyUnavailableError } from '../errors.js';
import type { StartupState } from '../startup.js';

// Answered while starting: liveness, and the metrics of the process itself.
const ALWAYS_SERVED = new Set(['/healthz', '/metrics']);

/**
 * Lets a service listen before its start-up finished, so probes see it alive rather than refused: `/healthz`
 * answers, `/readyz` says `starting` and names the dependency waited for (no check runs: their clients are not
 * connected yet), and every other request gets 503 with `Retry-After`. Register it before any route.
 */
export function registerStartupGate(app: FastifyInstance, startup: StartupState): void {
  app.addHook('onRequest', async (request, reply) => {
    if (startup.done) return;
    const route = request.routeOptions.url;
    if (route !== undefined && ALWAYS_SERVED.has(route)) return;
    const waitingFor = startup.waitingFor ?? 'startup';
    if (route === '/readyz') {
      return reply
        .code(503)
        .header('retry-after', '5')
        .send({ status: 'starting', checks: { [waitingFor]: 'failed' } });
    }
    throw new DependencyUnavailableError(waitingFor);
  });
}
