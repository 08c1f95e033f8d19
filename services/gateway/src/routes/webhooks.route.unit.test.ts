import { describe, expect, it } from 'vitest';
import {
  allowList,
  DEFAULT_WEBHOOK_PORTS,
  formatApiKey,
  generateApiKey,
  resolveWithin,
  type Resolve,
} from '@audit/shared';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';
import { REFUSED_TARGET } from './webhooks.route.js';

const key = generateApiKey('live');
const stored = storedKeyFor(key, STUB_PEPPER, { scopes: ['webhooks:write'] });

// A DNS in memory: an internal name, a public one, a name that does not exist, and one whose servers never answer.
const zone: Record<string, string[]> = {
  'internal.example': ['10.1.2.3'],
  'public.example': ['93.184.216.34'],
};
const resolve: Resolve = (host) =>
  host === 'hangs.example'
    ? new Promise(() => {})
    : zone[host]
      ? Promise.resolve(zone[host].map((address) => ({ address, family: 4 })))
      : Promise.reject(Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));

async function create(url: string) {
  const app = await buildApp(
    stubAppOptions({
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
      targets: {
        allowHttp: false,
        allowed: allowList([]),
        ports: DEFAULT_WEBHOOK_PORTS,
        resolve: resolveWithin(resolve, 50),
      },
    }),
  );
  const res = await app.inject({
    method: 'POST',
    url: '/api/v2/public/audit/webhooks',
    headers: { authorization: `Bearer ${formatApiKey(key)}` },
    payload: { url },
  });
  await app.close();
  return res;
}

describe('POST /audit/webhooks target guard', () => {
  it('refuses every refused host with one answer that tells nothing of the network', async () => {
    const refused = await Promise.all(
      [
        'https://10.0.0.1/hook',
        'https://169.254.169.254/latest/meta-data/',
        'https://internal.example/hook',
        'https://nowhere.example/hook',
        'https://hangs.example/hook',
      ].map(create),
    );
    for (const res of refused) {
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([{ field: 'url', message: REFUSED_TARGET }]);
    }
    expect(new Set(refused.map((res) => res.body)).size).toBe(1);
    expect(refused[0]!.body).not.toMatch(/10\.|169\.254|internal|resolve[sd] to|could not/);
  });

  it('still checks a public name (and only then tries to store it)', async () => {
    // The stub store refuses to be used: reaching it means the target passed the guard.
    expect((await create('https://public.example/hook')).statusCode).toBe(503);
  });
});

describe('POST /audit/webhooks/{id}/rotate-secret', () => {
  const endpoint = {
    id: 'wh_0000abcd',
    tenant_id: stored.tenant_id,
    url: 'https://public.example/hook',
    event_filter: [],
    description: '',
    active: true,
    created_at: new Date(0),
    disabled_at: null,
    consecutive_failures: 0,
    last_delivery_at: null,
    version: 2,
    previous_secret_expires_at: new Date(Date.UTC(2026, 10, 27)),
  };
  const calls: { id: string; overlap: number }[] = [];

  async function rotate(id: string, payload?: unknown, found: 'yes' | 'missing' | 'foreign' = 'yes') {
    const app = await buildApp(
      stubAppOptions({
        auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
        webhooks: {
          ...stubAppOptions().webhooks,
          rotateSecret: async (_tenant, id, overlap) => {
            calls.push({ id, overlap });
            return found === 'yes'
              ? { found: true, value: { endpoint, secret: 'ab'.repeat(32) } }
              : { found: false, reason: found };
          },
        },
      }),
    );
    const res = await app.inject({
      method: 'POST',
      url: `/api/v2/public/audit/webhooks/${id}/rotate-secret`,
      headers: { authorization: `Bearer ${formatApiKey(key)}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    await app.close();
    return res;
  }

  it('answers the new secret in both forms and when the previous one stops signing', async () => {
    const res = await rotate('wh_0000abcd', { overlap_seconds: 3600 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      endpoint: { id: 'wh_0000abcd', active: true },
      secret: 'ab'.repeat(32),
      standard_webhooks_secret: `whsec_${Buffer.from('ab'.repeat(32)).toString('base64')}`,
      previous_secret_expires_at: '2026-11-27T00:00:00.000+00:00',
    });
    expect(calls.at(-1)).toEqual({ id: 'wh_0000abcd', overlap: 3600 });
    expect((await rotate('wh_0000abcd')).statusCode).toBe(200);
    expect(calls.at(-1)).toEqual({ id: 'wh_0000abcd', overlap: 86_400 });
  });

  it.each([
    [{ overlap_seconds: -1 }],
    [{ overlap_seconds: 604_801 }],
    [{ overlap_seconds: 1.5 }],
    [{ overlap_seconds: '60' }],
    [{ overlap: 60 }],
    [[]],
  ])('refuses %j with 422, changing nothing', async (payload) => {
    const before = calls.length;
    const res = await rotate('wh_0000abcd', payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error).toBe('invalid_request');
    expect(calls.length).toBe(before);
  });

  it("answers 404 for an unknown or malformed id and 403 for another tenant's endpoint", async () => {
    expect((await rotate('wh_0000abcd', {}, 'missing')).statusCode).toBe(404);
    expect((await rotate('wh_nothex!', {})).statusCode).toBe(404);
    expect((await rotate('wh_0000abcd', {}, 'foreign')).statusCode).toBe(403);
  });
});
