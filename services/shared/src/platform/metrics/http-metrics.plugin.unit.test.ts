import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createHttpServer } from '../http/server.js';
import { registerErrorHandling } from '../http/error-handler.js';
import { registerHttpMetrics, registerMetricsRoute, UNMATCHED_ROUTE } from './http-metrics.plugin.js';
import { Registry } from './metrics.registry.js';

async function app() {
  const registry = new Registry();
  const server = createHttpServer(pino({ level: 'silent' }));
  registerErrorHandling(server);
  registerHttpMetrics(server, registry);
  registerMetricsRoute(server, registry);
  server.get('/tenants/:tenant/events/:id', async (request, reply) =>
    (request.params as { id: string }).id === 'missing' ? reply.code(404).send({}) : { ok: true },
  );
  return { server, registry };
}

async function counts(registry: Registry) {
  const metric = await registry.getSingleMetric('http_request_duration_seconds')!.get();
  return (metric.values as { metricName?: string; labels: object; value: number }[])
    .filter((v) => v.metricName === 'http_request_duration_seconds_count')
    .map((v) => ({ ...v.labels, count: v.value }));
}

// The exposition format: comments, or `name{labels} value` with quoted label values and a numeric value.
const SAMPLE_LINE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? [-+0-9.eEInfNa]+$/;

describe('HTTP metrics', () => {
  it('labels requests with the route pattern and status, never the URL', async () => {
    const { server, registry } = await app();
    await server.inject('/tenants/acme/events/e1');
    await server.inject('/tenants/acme/events/e2?secret=x');
    await server.inject('/tenants/other/events/missing');
    expect(await counts(registry)).toEqual(
      expect.arrayContaining([
        { method: 'GET', route: '/tenants/:tenant/events/:id', status_code: '200', count: 2 },
        { method: 'GET', route: '/tenants/:tenant/events/:id', status_code: '404', count: 1 },
      ]),
    );
    const text = await registry.metrics();
    for (const leaked of ['acme', 'e1', 'secret', 'other']) expect(text).not.toContain(leaked);
  });

  it('labels requests no route matched as unmatched', async () => {
    const { server, registry } = await app();
    await server.inject({ method: 'POST', url: '/no/such/path/123' });
    await server.inject({ method: 'POST', url: '/no/such/path/456' });
    expect(await counts(registry)).toEqual([
      { method: 'POST', route: UNMATCHED_ROUTE, status_code: '404', count: 2 },
    ]);
    expect(await registry.metrics()).not.toContain('/no/such/path');
  });

  it('serves the registry as Prometheus text with its content type', async () => {
    const { server } = await app();
    await server.inject('/tenants/acme/events/e1');
    const res = await server.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const lines = res.body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(SAMPLE_LINE);
    expect(res.body).toContain('# TYPE http_request_duration_seconds histogram');
    expect(res.body).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="\/tenants\/:tenant\/events\/:id",status_code="200"\} 1$/m,
    );
  });

  it('ignores whatever a scrape sends along', async () => {
    const { server } = await app();
    const res = await server.inject({
      url: '/metrics?name[]=x&format=%00',
      headers: { accept: '*/*;q=foo' },
    });
    expect(res.statusCode).toBe(200);
  });
});
