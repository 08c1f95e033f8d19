import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared/api-keys';
import {
  allowList,
  DEFAULT_WEBHOOK_PORTS,
  resolveWithin,
  type Resolve,
  type WebhookEndpointRecord,
} from '@audit/shared/webhooks';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';
import { endpointRecord } from '../test-support/webhook-endpoint.js';
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

const targets = {
  allowHttp: false,
  allowed: allowList([]),
  ports: DEFAULT_WEBHOOK_PORTS,
  resolve: resolveWithin(resolve, 50),
};

// Refused for every reason the guard has: a literal, an internal name, no answer, no answer in time.
const REFUSED_HOSTS = [
  'https://10.0.0.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://internal.example/hook',
  'https://nowhere.example/hook',
  'https://hangs.example/hook',
];

async function create(url: string) {
  const app = await buildApp(
    stubAppOptions({ auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored }, targets }),
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
    const refused = await Promise.all(REFUSED_HOSTS.map(create));
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

describe('PATCH /audit/webhooks/{id}', () => {
  const endpoint: WebhookEndpointRecord = {
    id: 'wh_0000abcd',
    tenant_id: stored.tenant_id,
    url: 'https://public.example/hook',
    event_filter: ['phi.'],
    patient_filter: ['p-1042'],
    description: 'SIEM',
    active: false,
    created_at: new Date(0),
    disabled_at: new Date(1000),
    consecutive_failures: 0,
    last_delivery_at: null,
    version: 3,
    previous_secret_expires_at: null,
    rate_limit_per_second: 25,
  };
  const updates: { id: string; changes: object }[] = [];
  const published: { action: string; details: Record<string, unknown> }[] = [];

  async function update(id: string, payload: unknown, found: 'yes' | 'missing' | 'foreign' = 'yes') {
    const app = await buildApp(
      stubAppOptions({
        auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
        targets,
        auditLog: {
          publish: async (events) => {
            published.push(...(events as typeof published));
            return [];
          },
        },
        webhooks: {
          ...stubAppOptions().webhooks,
          // As the store does: the changes applied, the audit event published before the answer.
          update: async (_tenant, id, changes, audit) => {
            updates.push({ id, changes });
            if (found !== 'yes') return { found: false, reason: found };
            const changed = { ...endpoint, ...changes, version: endpoint.version + 1 };
            await audit(changed);
            return { found: true, value: changed };
          },
        },
      }),
    );
    const res = await app.inject({
      method: 'PATCH',
      url: `/api/v2/public/audit/webhooks/${id}`,
      headers: { authorization: `Bearer ${formatApiKey(key)}` },
      payload: payload as object,
    });
    await app.close();
    return res;
  }

  it('changes the fields given, answers the endpoint, and writes admin.webhook.update', async () => {
    const res = await update('wh_0000abcd', {
      url: 'https://public.example/new?token=t0k3n',
      description: 'new label',
      rate_limit_per_second: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: 'wh_0000abcd',
      url: 'https://public.example/new?token=t0k3n',
      event_filter: ['phi.'],
      patient_filter: ['p-1042'],
      description: 'new label',
      active: false,
      created_at: '1970-01-01T00:00:00.000+00:00',
      rate_limit_per_second: null,
    });
    expect(updates.at(-1)).toEqual({
      id: 'wh_0000abcd',
      changes: {
        url: 'https://public.example/new?token=t0k3n',
        description: 'new label',
        rate_limit_per_second: null,
      },
    });
    expect(published.at(-1)).toMatchObject({
      action: 'admin.webhook.update',
      user_id: `api_key:${stored.prefix}`,
      resource_type: 'webhook_endpoint',
      resource_id: 'wh_0000abcd',
      details: {
        endpoint_id: 'wh_0000abcd',
        target: 'https://public.example/new',
        changed: ['url', 'description', 'rate_limit_per_second'],
        description: 'new label',
        rate_limit_per_second: null,
        endpoint_version: 4,
      },
    });
    // Only what was given: the filters did not change, and the URL's query never reaches the trail.
    expect(published.at(-1)!.details).not.toHaveProperty('event_filter');
    expect(published.at(-1)!.details).not.toHaveProperty('patient_filter');
    expect(JSON.stringify(published.at(-1))).not.toContain('t0k3n');
  });

  it('takes a single field, a limit or an empty filter among them', async () => {
    expect((await update('wh_0000abcd', { rate_limit_per_second: 10_000 })).json()).toMatchObject({
      rate_limit_per_second: 10_000,
    });
    expect((await update('wh_0000abcd', { event_filter: [] })).json()).toMatchObject({ event_filter: [] });
    expect(published.at(-1)!.details).toMatchObject({ changed: ['event_filter'], event_filter: [] });
    expect((await update('wh_0000abcd', { patient_filter: [] })).json()).toMatchObject({
      patient_filter: [],
    });
    expect(published.at(-1)!.details).toMatchObject({ changed: ['patient_filter'], patient_filter: [] });
  });

  it('changes the patient filter, with the new one in the audit event', async () => {
    const patients = [
      'p-1',
      'MRN 0042',
      '\u{1F9FE}',
      'x'.repeat(256),
      ...Array.from({ length: 46 }, (_, i) => `q-${i}`),
    ];
    const res = await update('wh_0000abcd', { patient_filter: patients, event_filter: ['phi.read'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ event_filter: ['phi.read'], patient_filter: patients });
    expect(updates.at(-1)).toEqual({
      id: 'wh_0000abcd',
      changes: { event_filter: ['phi.read'], patient_filter: patients },
    });
    expect(published.at(-1)!.details).toMatchObject({
      changed: ['event_filter', 'patient_filter'],
      event_filter: ['phi.read'],
      patient_filter: patients,
    });
  });

  it.each([
    [{}, ['(body)']],
    [[], ['(body)']],
    [{ active: true }, ['active', '(body)']],
    [{ secret: 'mine', description: 'x' }, ['secret']],
    [{ url: 'ftp://public.example/' }, ['url']],
    [{ url: 'https://user:pw@public.example/' }, ['url']],
    [{ url: '' }, ['url']],
    [{ url: null }, ['url']],
    [{ url: 'https://public.example/a b' }, ['url']],
    [{ event_filter: ['PHI.'] }, ['event_filter.0']],
    [{ event_filter: 'phi.' }, ['event_filter']],
    [{ event_filter: null }, ['event_filter']],
    [{ event_filter: Array.from({ length: 51 }, () => 'phi.') }, ['event_filter']],
    [{ patient_filter: 'p-1' }, ['patient_filter']],
    [{ patient_filter: null }, ['patient_filter']],
    [{ patient_filter: { 0: 'p-1' } }, ['patient_filter']],
    [{ patient_filter: [42] }, ['patient_filter.0']],
    [{ patient_filter: [null] }, ['patient_filter.0']],
    [{ patient_filter: ['p-1', ''] }, ['patient_filter.1']],
    [{ patient_filter: ['x'.repeat(257)] }, ['patient_filter.0']],
    [{ patient_filter: ['p-\ud800'] }, ['patient_filter.0']],
    [{ patient_filter: ['p\u00001'] }, ['patient_filter.0']],
    [{ patient_filter: ['p-1\n'] }, ['patient_filter.0']],
    [{ patient_filter: ['p-\u00851'] }, ['patient_filter.0']],
    [{ patient_filter: Array.from({ length: 51 }, (_, i) => `p-${i}`) }, ['patient_filter']],
    [{ description: 'x'.repeat(501) }, ['description']],
    [{ description: 'a\u0000b' }, ['description']],
    [{ description: null }, ['description']],
    [{ rate_limit_per_second: 0 }, ['rate_limit_per_second']],
    [{ rate_limit_per_second: 10_001 }, ['rate_limit_per_second']],
    [{ rate_limit_per_second: 1.5 }, ['rate_limit_per_second']],
    [{ rate_limit_per_second: '5' }, ['rate_limit_per_second']],
  ])('refuses %j with a 422 naming %j, changing nothing', async (payload, fields) => {
    const before = updates.length;
    const res = await update('wh_0000abcd', payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error).toBe('invalid_request');
    expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(fields);
    expect(updates.length).toBe(before);
  });

  it('refuses every refused host with the one answer creation gives, before the store is asked', async () => {
    const before = updates.length;
    const refused = await Promise.all(REFUSED_HOSTS.map((url) => update('wh_0000abcd', { url })));
    for (const res of refused) {
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([{ field: 'url', message: REFUSED_TARGET }]);
    }
    expect(new Set(refused.map((res) => res.body)).size).toBe(1);
    expect(updates.length).toBe(before);
  });

  it("answers 404 for an unknown or malformed id and 403 for another tenant's endpoint", async () => {
    expect((await update('wh_0000abcd', { description: 'x' }, 'missing')).statusCode).toBe(404);
    expect((await update('wh_nothex!', { description: 'x' })).statusCode).toBe(404);
    expect((await update('wh_0000abcd', { description: 'x' }, 'foreign')).statusCode).toBe(403);
  });
});

describe('POST /audit/webhooks/{id}/rotate-secret', () => {
  const endpoint = endpointRecord({ tenant_id: stored.tenant_id });
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
