import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared/api-keys';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const auth = { authorization: `Bearer ${formatApiKey(key)}` };
const app = () =>
  buildApp(
    stubAppOptions({
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => storedKeyFor(key, STUB_PEPPER) },
    }),
  );

describe('405 for a method a path does not have', () => {
  it('covers every method Fastify routes, TRACE and QUERY included', async () => {
    const a = await app();
    for (const method of ['TRACE', 'QUERY'] as const) {
      const res = await a.inject({ method, url: '/api/v2/public/audit/webhooks', headers: auth });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
    }
  });

  it('answers before any body is read: a QUERY without Content-Type, or with a broken body', async () => {
    const a = await app();
    const url = '/api/v2/public/audit/events/00000000-0000-4000-8000-000000000000';
    const answers = await Promise.all([
      a.inject({ method: 'QUERY', url, headers: auth }),
      a.inject({
        method: 'QUERY',
        url,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: '{',
      }),
      a.inject({ method: 'PUT', url, headers: { ...auth, 'content-type': 'text/csv' }, payload: 'a,b' }),
    ]);
    expect(answers.map((res) => [res.statusCode, res.headers.allow])).toEqual([
      [405, 'GET, HEAD'],
      [405, 'GET, HEAD'],
      [405, 'GET, HEAD'],
    ]);
  });
});
