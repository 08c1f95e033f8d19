import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { registerMetricsRoute } from '../metrics/http-metrics.plugin.js';
import { createMetrics } from '../metrics/metrics.registry.js';
import { registerErrorHandling } from './error-handler.js';
import { registerHealth } from './health.plugin.js';
import { createHttpServer } from './server.js';
import { registerStartupGate } from './startup-gate.js';

function appWith(startup: { done: boolean; waitingFor: string | null }) {
  const app = createHttpServer(createLogger('test', 'silent'));
  registerErrorHandling(app);
  registerStartupGate(app, startup);
  registerHealth(app, { kafka: async () => undefined });
  registerMetricsRoute(app, createMetrics('test'));
  app.get('/work', async () => ({ done: true }));
  return app;
}

describe('registerStartupGate', () => {
  it('while starting: alive, not ready naming the dependency waited for, and 503 with Retry-After elsewhere', async () => {
    const app = appWith({ done: false, waitingFor: 'postgres' });
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(200);
    const ready = await app.inject({ url: '/readyz' });
    expect([ready.statusCode, ready.headers['retry-after']]).toEqual([503, '5']);
    expect(ready.json()).toEqual({ status: 'starting', checks: { postgres: 'failed' } });
    const work = await app.inject({ url: '/work' });
    expect([work.statusCode, work.headers['retry-after']]).toEqual([503, '5']);
    expect(work.json()).toMatchObject({ error: 'service_unavailable' });
    expect((await app.inject({ url: '/nowhere' })).statusCode).toBe(503);
  });

  it('once started, lets every request through to its route', async () => {
    const startup = { done: false, waitingFor: null };
    const app = appWith(startup);
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'starting',
      checks: { startup: 'failed' },
    });
    startup.done = true;
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'ready',
      checks: { kafka: 'ok' },
    });
    expect((await app.inject({ url: '/work' })).json()).toEqual({ done: true });
    expect((await app.inject({ url: '/nowhere' })).statusCode).toBe(404);
  });
});
