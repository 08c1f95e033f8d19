import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { KafkaJSError } from 'kafkajs';
import { ValidationError } from '@audit/shared';
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

function appWith(publish: (events: readonly unknown[]) => Promise<string[]>, publishTimeoutMs = 1000) {
  return buildApp({
    logger: pino({ level: 'silent' }),
    token: TOKEN,
    maxBytes: 1024 * 1024,
    publishTimeoutMs,
    publisher: { publish },
    readiness: { kafka: async () => undefined },
  });
}

const inject = (app: Awaited<ReturnType<typeof appWith>>) =>
  app.inject({
    method: 'POST',
    url: '/internal/v1/events',
    headers: { authorization: `Bearer ${TOKEN}` },
    payload: [event],
  });

describe('ingest app', () => {
  it('answers 503 with Retry-After when Kafka refuses the batch', async () => {
    const app = await appWith(async () => {
      throw new KafkaJSError('broker down');
    });
    const res = await inject(app);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ error: 'service_unavailable', message: expect.stringContaining('kafka') });
  });

  it('answers 503 when Kafka does not acknowledge within the deadline', async () => {
    const app = await appWith(() => new Promise(() => undefined), 50);
    expect((await inject(app)).statusCode).toBe(503);
  });

  it('passes validation errors through as 422', async () => {
    const app = await appWith(async () => {
      throw new ValidationError('bad', [{ field: 'x', message: 'y' }]);
    });
    const res = await inject(app);
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([{ field: 'x', message: 'y' }]);
  });

  it('serves health without a token', async () => {
    const app = await appWith(async () => []);
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'ready',
      checks: { kafka: 'ok' },
    });
  });
});
