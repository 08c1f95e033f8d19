import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { KafkaJSError } from 'kafkajs';
import { type AuditEventRecord } from '@audit/shared/contract';
import { Registry } from '@audit/shared/platform';
import { buildApp } from './app.js';

const TOKEN = 'test-token-0123456789';
const event = {
  tenant_id: 't',
  action: 'phi.read',
  user_id: 'u',
  resource_type: 'r',
  phi_involved: true,
  success: true,
};

function appWith(
  publishRecords: (records: readonly AuditEventRecord[]) => Promise<void>,
  publishTimeoutMs = 1000,
  metrics = new Registry(),
) {
  return buildApp({
    logger: pino({ level: 'silent' }),
    metrics,
    token: TOKEN,
    maxBytes: 1024 * 1024,
    publishTimeoutMs,
    clock: () => Date.UTC(2026, 10, 21),
    publisher: { publishRecords },
    readiness: { kafka: async () => undefined },
    startup: { done: true, waitingFor: null },
  });
}

const post = (
  app: Awaited<ReturnType<typeof appWith>>,
  payload: unknown,
  headers: Record<string, string> = {},
) =>
  app.inject({
    method: 'POST',
    url: '/internal/v1/events',
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
    payload: payload as string,
  });

describe('ingest app', () => {
  it('answers 503 with Retry-After when Kafka refuses the batch', async () => {
    const app = await appWith(async () => {
      throw new KafkaJSError('broker down');
    });
    const res = await post(app, [event]);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({
      error: 'service_unavailable',
      message: expect.stringContaining('retry later'),
    });
  });

  it('answers 503 when Kafka does not acknowledge within the deadline', async () => {
    const app = await appWith(() => new Promise(() => undefined), 50);
    expect((await post(app, [event])).statusCode).toBe(503);
  });

  it('refuses deeply nested details with 422, before anything reaches Kafka', async () => {
    let published = 0;
    const app = await appWith(async () => void published++);
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const body = `[${JSON.stringify(event).slice(0, -1)},"details":${deep}}]`;
    const res = await post(app, body, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { index: 0, field: 'details', message: 'nested at most 32 levels deep' },
    ]);
    expect(published).toBe(0);
  });

  it('refuses a __proto__ key the same way in JSON and NDJSON bodies', async () => {
    const app = await appWith(async () => undefined);
    const line = `{"tenant_id":"t","action":"phi.read","user_id":"u","resource_type":"r","phi_involved":true,"success":true,"details":{"__proto__":{"x":1}}}`;
    const asJson = await post(app, `[${line}]`, { 'content-type': 'application/json' });
    const asNdjson = await post(app, line, { 'content-type': 'application/x-ndjson' });
    expect(asJson.statusCode).toBe(400);
    expect(asNdjson.statusCode).toBe(400);
    expect(asNdjson.json().details[0]).toMatchObject({ index: 0, field: '(event)' });
  });

  it('names the body when it is not a non-empty array', async () => {
    const app = await appWith(async () => undefined);
    const res = await post(app, {});
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([{ field: '(body)', message: expect.any(String) }]);
  });

  it('reads the body as its Content-Type says: a JSON string is not NDJSON', async () => {
    let published = 0;
    const app = await appWith(async () => void published++);
    const lines = `${JSON.stringify(event)}\n${JSON.stringify(event)}`;
    const res = await post(app, JSON.stringify(lines), { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { field: '(body)', message: 'The body must be a JSON array of audit events.' },
    ]);
    expect((await post(app, lines, { 'content-type': 'application/x-ndjson' })).statusCode).toBe(202);
    expect(published).toBe(1);
  });

  it("refuses the service's own actions, naming each, and publishes nothing of the batch", async () => {
    let published = 0;
    const app = await appWith(async () => void published++);
    const reserved = [
      'admin.key.create',
      'admin.webhook.delete',
      'admin.integrity.key.rotate',
      'admin.tenant.update',
      'admin.retention.update',
      'admin.legal_hold.release',
      'admin.viewer_token.create',
      'admin.display_template.update',
      'admin.export.cancel',
      'audit.export',
    ];
    const actions = [...reserved, 'admin.user.update'];
    const res = await post(
      app,
      actions.map((action) => ({ ...event, action })),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual(
      reserved.map((_, index) => ({
        index,
        field: 'action',
        message: expect.stringContaining('service itself'),
      })),
    );
    expect(published).toBe(0);
    expect((await post(app, [{ ...event, action: 'admin.user.update' }])).statusCode).toBe(202);
  });

  it('refuses details with a number it would not store exactly, naming each event, in JSON and NDJSON', async () => {
    const published: AuditEventRecord[] = [];
    const app = await appWith(async (records) => void published.push(...records));
    const line = (details: string) => `${JSON.stringify(event).slice(0, -1)},"details":${details}}`;
    const lines = [line('{"id":12345678901234567890}'), line('{"n":1.5}'), line('{"deep":[{"x":1e400}]}')];
    for (const [body, type] of [
      [`[${lines.join(',')}]`, 'application/json'],
      [lines.join('\n'), 'application/x-ndjson'],
    ] as const) {
      const res = await post(app, body, { 'content-type': type });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        { index: 0, field: 'details', message: expect.stringContaining('12345678901234567890') },
        { index: 2, field: 'details', message: expect.stringContaining('1e400') },
      ]);
    }
    expect(published).toEqual([]);
    // Numbers that survive parsing, and long digit runs inside strings, are stored as sent.
    const kept = line('{"id":"12345678901234567890","max":9007199254740991,"tiny":5e-324}');
    expect((await post(app, `[${kept}]`, { 'content-type': 'application/json' })).statusCode).toBe(202);
    expect(JSON.parse(published[0]!.details)).toEqual({
      id: '12345678901234567890',
      max: 9007199254740991,
      tiny: 5e-324,
    });
  });

  it('answers hostile shapes around a long number with 422, never a 5xx', async () => {
    const app = await appWith(async () => undefined);
    const line = (details: string) => `${JSON.stringify(event).slice(0, -1)},"details":${details}}`;
    const deep = `${'['.repeat(20_000)}12345678901234567890${']'.repeat(20_000)}`;
    const wide = `[${Array.from({ length: 300_000 }, () => '1').join(',')},12345678901234567890]`;
    for (const details of [`{"a":${deep}}`, `{"a":${wide}}`]) {
      const res = await post(app, `[${line(details)}]`, { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([{ index: 0, field: 'details', message: expect.any(String) }]);
    }
    // One key twice with different values: JSON.parse keeps the last; the exact read refuses to choose.
    const twice = await post(app, `[${line('{"a":12345678901234567890,"a":1}')}]`, {
      'content-type': 'application/json',
    });
    expect(twice.statusCode).toBe(422);
    expect(twice.json().details).toEqual([
      { index: 0, field: '(body)', message: expect.stringContaining('Duplicate key') },
    ]);
  });

  it('serves health without a token', async () => {
    const app = await appWith(async () => undefined);
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'ready',
      checks: { kafka: 'ok' },
    });
  });

  it('serves metrics without a token, counting events by outcome and requests by route', async () => {
    const metrics = new Registry();
    let up = true;
    const app = await appWith(
      async () => {
        if (!up) throw new KafkaJSError('broker down');
      },
      1000,
      metrics,
    );
    expect((await post(app, [event, event])).statusCode).toBe(202);
    expect((await post(app, [event, { ...event, action: '' }, event])).statusCode).toBe(422);
    up = false;
    expect((await post(app, [event])).statusCode).toBe(503);
    const res = await app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('ingest_events_total{outcome="accepted"} 2');
    expect(res.body).toContain('ingest_events_total{outcome="rejected"} 3');
    expect(res.body).toContain('ingest_events_total{outcome="unavailable"} 1');
    expect(res.body).toMatch(
      /^http_request_duration_seconds_count\{method="POST",route="\/internal\/v1\/events",status_code="422"\} 1$/m,
    );
  });
});
