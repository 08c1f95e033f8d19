import { afterAll, describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type Scope } from '@audit/shared/api-keys';
import { openApiContract } from '../../../../test/support/openapi-contract.js';
import { buildApp, type GatewayAppOptions } from '../app.js';
import { memoryRetention, retentionApp } from '../test-support/retention.js';
import { servedDocument } from '../test-support/served-document.js';

const key = generateApiKey('live');
const URL = '/api/v2/public/audit/retention';
const contract = openApiContract(await servedDocument());

const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

async function setup(
  opts: { scopes?: Scope[]; narrowed?: boolean; overrides?: Partial<GatewayAppOptions> } = {},
) {
  const { app, retention, published, asViewer } = await retentionApp(key, opts);
  apps.push(app);
  const headers: Record<string, string> = {
    authorization: `Bearer ${formatApiKey(key)}`,
    'user-agent': 'retention-test/1',
  };
  const send = async (method: 'GET' | 'PUT', payload?: unknown, url = URL, bearer = headers) => {
    // A string is sent as it is, as JSON.
    const raw = typeof payload === 'string' ? { 'content-type': 'application/json' } : {};
    const res = await app.inject({
      method,
      url,
      headers: { ...bearer, ...raw },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    expect(
      contract.check(method.toLowerCase(), '/audit/retention', { ...res, status: res.statusCode }),
    ).toEqual([]);
    return res;
  };
  return { app, retention, published, send, asViewer };
}

describe('GET /audit/retention', () => {
  it('answers the default policy while none was set', async () => {
    const res = await (await setup()).send('GET');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      min_days: 2192,
      max_days: null,
      version: 0,
      changed_at: null,
      changed_by: null,
      default: true,
      purged_before: null,
      last_purge: null,
    });
  });

  it("tells the tenant's purge horizon and its latest run", async () => {
    const run = {
      purge_id: '5d0c7a3e-1b2f-4c6d-8e9f-0a1b2c3d4e5f',
      purged_before: Date.UTC(2020, 0, 1),
      holds: 1,
      status: 'succeeded' as const,
      purged: 120,
      kept: 3,
      error: null,
      started_at: new Date(Date.UTC(2026, 10, 30, 9)),
      finished_at: new Date(Date.UTC(2026, 10, 30, 9, 1)),
      started_by: 'ops:alice',
      progress: { phase: 'expiring' as const, round: null, tables_done: null, tables: 4 },
    };
    const asked: [string, number][] = [];
    const { send } = await setup({
      overrides: {
        purges: {
          status: async (tenant, limit) => (
            asked.push([tenant, limit]),
            { purgedBefore: Date.UTC(2020, 0, 1), runs: [run] }
          ),
          history: async () => ({ purgedBefore: null, runs: [], holds: [] }),
        },
      },
    });
    const res = await send('GET');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      purged_before: '2020-01-01T00:00:00.000+00:00',
      last_purge: {
        ...run,
        purged_before: '2020-01-01T00:00:00.000+00:00',
        started_at: '2026-11-30T09:00:00.000+00:00',
        finished_at: '2026-11-30T09:01:00.000+00:00',
      },
    });
    expect(asked).toEqual([['acme', 1]]);
  });

  it('needs audit:read, refuses query parameters, and answers 503 while Postgres is down', async () => {
    expect((await (await setup({ scopes: ['retention:write'] })).send('GET')).statusCode).toBe(403);
    const unknown = await (await setup()).send('GET', undefined, `${URL}?version=1`);
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().details).toEqual([{ field: 'version', message: 'unknown parameter' }]);
    const down = await setup({
      overrides: {
        retention: { ...memoryRetention(), policy: () => Promise.reject(new Error('ECONNREFUSED')) },
      },
    });
    expect((await down.send('GET')).statusCode).toBe(503);
    const purgesDown = await setup({
      overrides: {
        purges: {
          status: () => Promise.reject(new Error('ECONNREFUSED')),
          history: () => Promise.reject(new Error('ECONNREFUSED')),
        },
      },
    });
    expect((await purgesDown.send('GET')).statusCode).toBe(503);
  });

  it('is read with a viewer token, and refused to one narrowed to a filter', async () => {
    const plain = await setup();
    expect((await plain.send('GET', undefined, URL, plain.asViewer)).statusCode).toBe(200);
    const narrowed = await setup({ narrowed: true });
    const res = await narrowed.send('GET', undefined, URL, narrowed.asViewer);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(
      'This viewer token is narrowed to a filter, which this endpoint cannot apply.',
    );
  });
});

describe('PUT /audit/retention', () => {
  it('stores a new version, answers it, and writes admin.retention.update with the bounds it replaced', async () => {
    const { retention, published, send } = await setup();
    const first = await send('PUT', { min_days: 365, max_days: 3650 });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({
      min_days: 365,
      max_days: 3650,
      version: 1,
      changed_at: expect.stringMatching(/^2026-.*\+00:00$/),
      changed_by: `api_key:${key.prefix}`,
      default: false,
      purged_before: null,
      last_purge: null,
    });
    const second = await send('PUT', { min_days: 365, max_days: null });
    expect(second.json()).toMatchObject({ min_days: 365, max_days: null, version: 2 });
    expect((await send('GET')).json()).toEqual(second.json());
    expect(retention.policies.get('acme')).toMatchObject({ version: 2 });
    expect(published).toEqual([
      {
        tenant_id: 'acme',
        action: 'admin.retention.update',
        user_id: `api_key:${key.prefix}`,
        user_role: 'api_key',
        resource_type: 'retention_policy',
        resource_id: 'acme',
        source_ip: '127.0.0.1',
        user_agent: 'retention-test/1',
        phi_involved: false,
        success: true,
        details: { min_days: 365, max_days: 3650, version: 1, previous: { min_days: 2192, max_days: null } },
      },
      expect.objectContaining({
        details: { min_days: 365, max_days: null, version: 2, previous: { min_days: 365, max_days: 3650 } },
      }),
    ]);
  });

  it('takes the same policy again as a new version', async () => {
    const { send } = await setup();
    await send('PUT', { min_days: 2192, max_days: null });
    expect((await send('PUT', { min_days: 2192, max_days: null })).json()).toMatchObject({ version: 2 });
  });

  it.each([
    [{ min_days: 400, max_days: 399 }, ['max_days']],
    [{ min_days: 400 }, ['max_days']],
    [{ max_days: null }, ['min_days']],
    [{}, ['min_days', 'max_days']],
    [undefined, ['min_days', 'max_days']],
    [{ min_days: 0, max_days: 36_501 }, ['min_days', 'max_days']],
    [{ min_days: 1.5, max_days: '10' }, ['min_days', 'max_days']],
    [{ min_days: 30, max_days: null, keep: 'all' }, ['keep']],
    [[{ min_days: 30, max_days: null }], ['(body)']],
    ['null', ['(body)']],
  ])('refuses %j with 422 naming %j, and changes nothing', async (payload, fields) => {
    const { retention, published, send } = await setup();
    const res = await send('PUT', payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ error: 'invalid_request', message: 'Invalid retention policy.' });
    expect((res.json().details as { field: string }[]).map((d) => d.field).sort()).toEqual(
      [...fields].sort(),
    );
    expect([retention.policies.size, published]).toEqual([0, []]);
  });

  it('refuses query parameters', async () => {
    const res = await (await setup()).send('PUT', { min_days: 30, max_days: null }, `${URL}?min_days=30`);
    expect(res.statusCode).toBe(422);
  });

  it('answers 403 to a key without retention:write, whatever it sent', async () => {
    const { retention, published, send } = await setup({ scopes: ['audit:read'] });
    const res = await send('PUT', { nonsense: true });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('This API key lacks the scope retention:write.');
    expect([retention.policies.size, published]).toEqual([0, []]);
  });

  it('answers 503 and changes nothing when Kafka does not take the audit event, or Postgres fails', async () => {
    for (const overrides of [
      { auditLog: { publish: () => Promise.reject(new Error('broker down')) } },
      { auditLog: { publish: () => new Promise<never>(() => {}) }, auditTimeoutMs: 20 },
    ]) {
      const { retention, send } = await setup({ overrides });
      const res = await send('PUT', { min_days: 30, max_days: null });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toBe('service_unavailable');
      expect(res.body).not.toMatch(/kafka|broker/i);
      expect(retention.policies.size).toBe(0);
    }
    const down = await setup({
      overrides: {
        retention: { ...memoryRetention(), setPolicy: () => Promise.reject(new Error('ECONNREFUSED')) },
      },
    });
    expect((await down.send('PUT', { min_days: 30, max_days: null })).statusCode).toBe(503);
    // The purges are read before the policy is stored: a failed read stores nothing.
    const purgesDown = await setup({
      overrides: {
        purges: {
          status: () => Promise.reject(new Error('ECONNREFUSED')),
          history: () => Promise.reject(new Error('ECONNREFUSED')),
        },
      },
    });
    expect((await purgesDown.send('PUT', { min_days: 30, max_days: null })).statusCode).toBe(503);
    expect(purgesDown.retention.policies.size).toBe(0);
    expect(purgesDown.published).toEqual([]);
  });
});
