import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type StoredApiKey } from '@audit/shared/api-keys';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from './app.js';
import { STUB_PEPPER as PEPPER, stubAppOptions } from './test-support/stub-app-options.js';

const key = generateApiKey('live');
const stored: StoredApiKey = storedKeyFor(key, PEPPER);

function app(
  findKey: () => Promise<StoredApiKey | null>,
  findEvent: () => Promise<null>,
  takeToken = async () => ({ allowed: true, remaining: 999 }),
) {
  return buildApp(
    stubAppOptions({
      takeToken,
      auth: { pepper: PEPPER, env: 'live', findKey },
      events: { findEvent, wasStored: async () => false, listPage: async () => [], listKeys: async () => [] },
    }),
  );
}

const lookup = (a: Awaited<ReturnType<typeof app>>) =>
  a.inject({
    url: '/api/v2/public/audit/events/00000000-0000-4000-8000-000000000000',
    headers: { authorization: `Bearer ${formatApiKey(key)}` },
  });

describe('gateway app', () => {
  it('answers 503 with Retry-After when Postgres cannot look the key up', async () => {
    const res = await lookup(
      await app(
        () => Promise.reject(new Error('ECONNREFUSED')),
        async () => null,
      ),
    );
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json().error).toBe('service_unavailable');
  });

  it('answers 503 when ClickHouse cannot be read', async () => {
    const res = await lookup(
      await app(
        async () => stored,
        () => Promise.reject(new Error('socket hang up')),
      ),
    );
    expect(res.statusCode).toBe(503);
  });

  it('authenticates and counts unknown paths under the API; answers others with 404 JSON', async () => {
    const a = await app(
      async () => stored,
      async () => null,
    );
    expect((await a.inject({ url: '/api/v2/public/nothing-here' })).statusCode).toBe(401);
    const known = await a.inject({
      method: 'DELETE',
      url: '/api/v2/public/nothing-here',
      headers: { authorization: `Bearer ${formatApiKey(key)}` },
    });
    expect(known.statusCode).toBe(404);
    expect(known.json().error).toBe('not_found');
    expect(known.headers['ratelimit-limit']).toBe('200');
    const outside = await a.inject({ url: '/elsewhere' });
    expect(outside.statusCode).toBe(404);
    expect(outside.json().error).toBe('not_found');
  });

  it('answers a long id with the same 404 as any other unknown id', async () => {
    const a = await app(
      async () => stored,
      async () => null,
    );
    const auth = { authorization: `Bearer ${formatApiKey(key)}` };
    const long = await a.inject({ url: `/api/v2/public/audit/events/${'a'.repeat(500)}`, headers: auth });
    const short = await a.inject({ url: '/api/v2/public/audit/events/nope', headers: auth });
    expect(long.statusCode).toBe(404);
    expect(long.body).toBe(short.body);
  });

  it('answers an undecodable URL with a 400 JSON error', async () => {
    const a = await app(
      async () => stored,
      async () => null,
    );
    const res = await a.inject({ url: '/api/v2/public/audit/events/%zz' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'bad_request', message: expect.any(String) });
  });

  it('answers 429 with Retry-After, the spec body and RateLimit headers once the bucket is empty', async () => {
    const a = await app(
      async () => stored,
      async () => null,
      async () => ({ allowed: false, remaining: 0.25 }),
    );
    const res = await lookup(a);
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['ratelimit-limit']).toBe('1000');
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(res.json()).toEqual({
      error: 'rate_limited',
      message: expect.stringContaining('read'),
      scope: 'read',
      retry_after_s: 1,
    });
  });

  it('keeps the RateLimit headers on an error answer such as a 403', async () => {
    const exportOnly = { ...stored, scopes: ['audit:export' as const] };
    const res = await lookup(
      await app(
        async () => exportOnly,
        async () => null,
      ),
    );
    expect(res.statusCode).toBe(403);
    expect(res.headers['ratelimit-remaining']).toBe('999');
  });

  it('marks every answer of the public API, errors included, as not to be stored or sniffed', async () => {
    const a = await app(
      async () => stored,
      async () => null,
    );
    const answers = [
      await lookup(a),
      await a.inject({ url: '/api/v2/public/audit/events' }),
      await a.inject({ url: '/api/v2/public/audit/events', headers: { authorization: 'Bearer nope' } }),
      await a.inject({
        url: '/api/v2/public/audit/events?limit=0',
        headers: { authorization: `Bearer ${formatApiKey(key)}` },
      }),
      await a.inject({
        url: '/api/v2/public/audit/events',
        headers: { authorization: `Bearer ${formatApiKey(key)}` },
      }),
    ];
    expect(answers.map((res) => res.statusCode)).toEqual([404, 401, 401, 422, 200]);
    for (const res of answers) {
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('answers a method a path does not have with 405 and Allow, after authentication', async () => {
    const a = await app(
      async () => stored,
      async () => null,
    );
    const auth = { authorization: `Bearer ${formatApiKey(key)}` };
    const cases = [
      ['DELETE', '/api/v2/public/audit/events', 'GET, HEAD'],
      ['POST', '/api/v2/public/audit/events/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
      ['GET', '/api/v2/public/audit/export', 'POST'],
      ['PUT', '/api/v2/public/audit/webhooks', 'GET, HEAD, POST'],
      ['GET', '/api/v2/public/audit/webhooks/wh_00000000/disable', 'POST'],
      ['POST', '/api/v2/public/audit/webhooks/wh_00000000', 'DELETE, PATCH'],
    ] as const;
    for (const [method, url, allow] of cases) {
      const res = await a.inject({ method, url, headers: auth });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.json()).toEqual({
        error: 'method_not_allowed',
        message: `This endpoint answers ${allow} only.`,
      });
    }
    expect((await a.inject({ method: 'DELETE', url: '/api/v2/public/audit/events' })).statusCode).toBe(401);
    expect(
      (await a.inject({ method: 'GET', url: '/api/v2/public/audit/nothing', headers: auth })).statusCode,
    ).toBe(404);
  });
});
