import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type Scope } from '@audit/shared/api-keys';
import { RFC3339_RULE } from '@audit/shared/contract';
import { MAX_ACTIVE_HOLDS, type LegalHold } from '@audit/shared/retention';
import { openApiContract } from '../../../../test/support/openapi-contract.js';
import { buildApp, type GatewayAppOptions } from '../app.js';
import { encodeHoldsCursor, encodeJobsCursor } from '../domain/cursor.js';
import { legalHold, memoryRetention, retentionApp } from '../test-support/retention.js';
import { stubAppOptions } from '../test-support/stub-app-options.js';
import { servedDocument } from '../test-support/served-document.js';

const key = generateApiKey('live');
const BASE = '/api/v2/public/audit/legal-holds';
const SECRET = stubAppOptions().cursorSecret;
const contract = openApiContract(await servedDocument());
const valid = {
  reason: 'Matter 2026-114: Doe v. Clinic',
  scope: { patient_id: 'p-1042', since: '2025-01-01T00:00:00Z', until: '2026-01-01T00:00:00+01:00' },
};

const SETTLED = { reason: 'Matter settled' };
const NO_BODY = Symbol('no body');

const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

// The path each URL is documented under, for checking answers against the document.
const documented = (url: string) =>
  url
    .replace(/\?.*$/, '')
    .replace('/api/v2/public', '')
    .replace(/^\/audit\/legal-holds\/[^/]+/, '/audit/legal-holds/{hold_id}');

async function setup(
  opts: {
    scopes?: Scope[];
    holds?: (LegalHold & { tenant: string })[];
    narrowed?: boolean;
    overrides?: Partial<GatewayAppOptions>;
  } = {},
) {
  const { app, retention, published, asViewer } = await retentionApp(key, opts);
  apps.push(app);
  const auth = { authorization: `Bearer ${formatApiKey(key)}` };
  const send = async (method: 'GET' | 'POST', url: string, payload?: unknown, headers = auth) => {
    const res = await app.inject({
      method,
      url,
      headers,
      ...(payload === undefined || payload === NO_BODY ? {} : { payload: payload as object }),
    });
    const observed = { ...res, status: res.statusCode };
    expect(contract.check(method.toLowerCase(), documented(url), observed)).toEqual([]);
    return res;
  };
  const get = (url: string, headers = auth) => send('GET', url, undefined, headers);
  const post = (payload: unknown, url = BASE) => send('POST', url, payload);
  const release = (id: string, payload: unknown = SETTLED) => send('POST', `${BASE}/${id}/release`, payload);
  return { retention, published, get, post, release, asViewer };
}

const fields = (res: { json(): { details: { field: string }[] } }) =>
  res
    .json()
    .details.map((d) => d.field)
    .sort();

describe('POST /audit/legal-holds', () => {
  it('puts a hold in force: 201 with it, stored, and written as admin.legal_hold.create', async () => {
    const { retention, published, post } = await setup();
    const res = await post(valid);
    expect(res.statusCode, res.body).toBe(201);
    const hold = res.json();
    expect(hold).toEqual({
      hold_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'active',
      reason: 'Matter 2026-114: Doe v. Clinic',
      scope: {
        patient_id: 'p-1042',
        since: '2025-01-01T00:00:00.000+00:00',
        until: '2025-12-31T23:00:00.000+00:00',
      },
      created_at: expect.stringMatching(/^2026-.*\+00:00$/),
      created_by: `api_key:${key.prefix}`,
      released_at: null,
      released_by: null,
      release_reason: null,
    });
    expect(retention.stored.map((h) => [h.tenant, h.hold_id])).toEqual([['acme', hold.hold_id]]);
    expect(published).toEqual([
      {
        tenant_id: 'acme',
        action: 'admin.legal_hold.create',
        user_id: `api_key:${key.prefix}`,
        user_role: 'api_key',
        resource_type: 'legal_hold',
        resource_id: hold.hold_id,
        source_ip: '127.0.0.1',
        user_agent: expect.any(String),
        phi_involved: false,
        success: true,
        details: { reason: 'Matter 2026-114: Doe v. Clinic', scope: hold.scope },
      },
    ]);
    // A hold is no access to the patient's records: the event names none.
    expect(published[0]).not.toHaveProperty('patient_id');
  });

  it('takes a hold without a scope (every event of the tenant), its reason trimmed', async () => {
    const res = await (await setup()).post({ reason: '  litigation hold  ' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ reason: 'litigation hold', scope: {} });
  });

  it.each([
    [{}, ['reason']],
    [undefined, ['reason']],
    [{ reason: '   ' }, ['reason']],
    [{ reason: 'x'.repeat(501) }, ['reason']],
    [{ reason: 7 }, ['reason']],
    [{ reason: 'a\u0000b' }, ['reason']],
    [{ reason: 'a\udfffb' }, ['reason']],
    [{ ...valid, keep: true }, ['keep']],
    [{ ...valid, scope: { ...valid.scope, action: 'phi.read' } }, ['scope.action']],
    [{ ...valid, scope: { since: '2026-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' } }, ['scope.since']],
    [{ ...valid, scope: { since: 'yesterday' } }, ['scope.since']],
    [{ ...valid, scope: { user_id: '' } }, ['scope.user_id']],
    [{ ...valid, scope: { user_id: 'x'.repeat(257) } }, ['scope.user_id']],
    [{ ...valid, scope: { user_id: 'u\u00001' } }, ['scope.user_id']],
    [{ ...valid, scope: { resource_id: 'r\u00001' } }, ['scope.resource_id']],
    [{ ...valid, scope: { patient_id: 'p\n1' } }, ['scope.patient_id']],
    [{ ...valid, scope: null }, ['scope']],
    [[valid], ['(body)']],
  ])('refuses %j with 422 naming %j, and creates nothing', async (payload, expected) => {
    const { retention, published, post } = await setup();
    const res = await post(payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ error: 'invalid_request', message: 'Invalid legal hold.' });
    expect(fields(res)).toEqual([...expected].sort());
    expect([retention.stored, published]).toEqual([[], []]);
  });

  it('names the time rule it breaks', async () => {
    const res = await (await setup()).post({ reason: 'r', scope: { until: '2026-13-01T00:00:00Z' } });
    expect(res.json().details).toEqual([{ field: 'scope.until', message: RFC3339_RULE }]);
  });

  it(`answers 409 limit_reached with ${MAX_ACTIVE_HOLDS} holds in force; released ones and other tenants' do not count`, async () => {
    const inForce = Array.from({ length: MAX_ACTIVE_HOLDS - 1 }, (_, i) => ({
      ...legalHold(i),
      tenant: 'acme',
    }));
    const released = {
      ...legalHold(200, { released_at: new Date(), released_by: 'x', release_reason: 'y' }),
    };
    const { retention, published, post } = await setup({
      holds: [...inForce, { ...released, tenant: 'acme' }, { ...legalHold(300), tenant: 'other' }],
    });
    expect((await post(valid)).statusCode).toBe(201);
    const refused = await post(valid);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: 'limit_reached',
      message: `A tenant has at most ${MAX_ACTIVE_HOLDS} legal holds in force; release one before adding another.`,
    });
    expect(retention.stored).toHaveLength(MAX_ACTIVE_HOLDS + 2);
    expect(published).toHaveLength(1);
  });

  it('answers 503 and creates nothing when Kafka does not take the audit event, or Postgres fails', async () => {
    for (const overrides of [
      { auditLog: { publish: () => Promise.reject(new Error('broker down')) } },
      { auditLog: { publish: () => new Promise<never>(() => {}) }, auditTimeoutMs: 20 },
    ]) {
      const { retention, post } = await setup({ overrides });
      const res = await post(valid);
      expect(res.statusCode).toBe(503);
      expect(res.body).not.toMatch(/kafka|broker/i);
      expect(retention.stored).toEqual([]);
    }
    const down = await setup({
      overrides: {
        retention: { ...memoryRetention(), createHold: () => Promise.reject(new Error('ECONNREFUSED')) },
      },
    });
    expect((await down.post(valid)).statusCode).toBe(503);
  });

  it('answers 403 to a key without retention:write, whatever it sent', async () => {
    const { retention, published, post } = await setup({ scopes: ['audit:read'] });
    const res = await post({ nonsense: true });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('This API key lacks the scope retention:write.');
    expect([retention.stored, published]).toEqual([[], []]);
  });

  it('refuses query parameters', async () => {
    expect((await (await setup()).post(valid, `${BASE}?status=active`)).statusCode).toBe(422);
  });
});

describe('GET /audit/legal-holds/{hold_id}', () => {
  const mine = legalHold(1, { scope: { user_id: 'u-7', since: Date.UTC(2025, 0, 1) } });
  const theirs = legalHold(2);
  const holds = [
    { ...mine, tenant: 'acme' },
    { ...theirs, tenant: 'other' },
  ];

  it("answers one of the tenant's holds, the id in either case", async () => {
    const res = await (await setup({ holds })).get(`${BASE}/${mine.hold_id.toUpperCase()}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      hold_id: mine.hold_id,
      status: 'active',
      reason: 'matter 1',
      scope: { user_id: 'u-7', since: '2025-01-01T00:00:00.000+00:00' },
      created_at: '2026-11-21T09:30:00.001+00:00',
      created_by: 'api_key:0a1b2c3d',
      released_at: null,
      released_by: null,
      release_reason: null,
    });
  });

  it("answers 404 for an unknown id and another tenant's hold, 422 for a malformed one", async () => {
    const { get } = await setup({ holds });
    for (const id of [theirs.hold_id, randomUUID()]) {
      const res = await get(`${BASE}/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found', message: 'No legal hold with this id.' });
    }
    for (const id of ['not-a-uuid', `${mine.hold_id}0`, "1' OR '1'='1"]) {
      const res = await get(`${BASE}/${encodeURIComponent(id)}`);
      expect(res.statusCode).toBe(422);
      expect(fields(res)).toEqual(['hold_id']);
    }
    expect((await get(`${BASE}/${mine.hold_id}?x=1`)).statusCode).toBe(422);
  });

  it('needs audit:read, and is refused to a narrowed viewer token', async () => {
    expect(
      (await (await setup({ holds, scopes: ['retention:write'] })).get(`${BASE}/${mine.hold_id}`)).statusCode,
    ).toBe(403);
    const narrowed = await setup({ holds, narrowed: true });
    expect((await narrowed.get(`${BASE}/${mine.hold_id}`, narrowed.asViewer)).statusCode).toBe(403);
    const plain = await setup({ holds });
    expect((await plain.get(`${BASE}/${mine.hold_id}`, plain.asViewer)).statusCode).toBe(200);
  });
});

describe('POST /audit/legal-holds/{hold_id}/release', () => {
  it('releases a hold once: written as admin.legal_hold.release; again, the same answer and no event', async () => {
    const { published, post, release, get } = await setup();
    const { hold_id: id } = (await post(valid)).json();
    const first = await release(id);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      hold_id: id,
      status: 'released',
      reason: valid.reason,
      released_at: expect.stringMatching(/\+00:00$/),
      released_by: `api_key:${key.prefix}`,
      release_reason: 'Matter settled',
    });
    expect(published.at(-1)).toMatchObject({
      action: 'admin.legal_hold.release',
      resource_type: 'legal_hold',
      resource_id: id,
      user_id: `api_key:${key.prefix}`,
      details: {
        reason: 'Matter settled',
        held_because: valid.reason,
        scope: first.json().scope,
      },
    });
    const again = await release(id, { reason: 'Another reason' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect((await get(`${BASE}/${id}`)).json()).toEqual(first.json());
    expect(published.map((e) => e.action)).toEqual(['admin.legal_hold.create', 'admin.legal_hold.release']);
  });

  it("answers 404 for an unknown id or another tenant's hold, 422 for a malformed id or body", async () => {
    const theirs = legalHold(1);
    const { release, published } = await setup({ holds: [{ ...theirs, tenant: 'other' }] });
    expect((await release(theirs.hold_id)).statusCode).toBe(404);
    expect((await release(randomUUID())).statusCode).toBe(404);
    expect(fields(await release('nope'))).toEqual(['hold_id']);
    for (const [payload, expected] of [
      [{}, ['reason']],
      [NO_BODY, ['reason']],
      [{ reason: '' }, ['reason']],
      [{ reason: 'a\u0000' }, ['reason']],
      [{ reason: 'ok', by: 'me' }, ['by']],
    ] as const) {
      const res = await release(theirs.hold_id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().message).toBe('Invalid release.');
      expect(fields(res)).toEqual(expected);
    }
    expect(published).toEqual([]);
  });

  it('answers 503 and leaves the hold in force when Kafka does not take the audit event', async () => {
    const hold = legalHold(1);
    const { retention, release } = await setup({
      holds: [{ ...hold, tenant: 'acme' }],
      overrides: { auditLog: { publish: () => Promise.reject(new Error('broker down')) } },
    });
    expect((await release(hold.hold_id)).statusCode).toBe(503);
    expect(retention.stored[0]).toMatchObject({ released_at: null, release_reason: null });
  });

  it('needs retention:write', async () => {
    const hold = legalHold(1);
    const { retention, release } = await setup({
      holds: [{ ...hold, tenant: 'acme' }],
      scopes: ['audit:read'],
    });
    expect((await release(hold.hold_id)).statusCode).toBe(403);
    expect(retention.stored[0]).toMatchObject({ released_at: null });
  });
});

describe('GET /audit/legal-holds', () => {
  // Seven holds of the tenant, two of them released, two in one millisecond; and another tenant's.
  const holds = [0, 1, 2, 3, 3, 4, 5].map((ms, i) =>
    legalHold(ms, {
      hold_id: `00000000-0000-4000-8000-00000000000${i}`,
      ...(i % 3 === 1 ? { released_at: new Date(), released_by: 'api_key:x', release_reason: 'done' } : {}),
    }),
  );
  const stored = [...holds.map((h) => ({ ...h, tenant: 'acme' })), { ...legalHold(9), tenant: 'other' }];
  const ids = (page: { holds: { hold_id: string }[] }) => page.holds.map((h) => h.hold_id.slice(-1));

  async function all(get: (url: string) => Promise<{ json(): unknown }>, status: string, limit: number) {
    const pages: { holds: { hold_id: string }[]; page: { next_cursor: string | null } }[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ status, limit: String(limit), ...(cursor ? { cursor } : {}) });
      pages.push((await get(`${BASE}?${query}`)).json() as (typeof pages)[number]);
      cursor = pages.at(-1)!.page.next_cursor;
    } while (cursor);
    return pages;
  }

  it('lists the holds in force by default, newest first (time, then id)', async () => {
    const res = await (await setup({ holds: stored })).get(BASE);
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(ids(page)).toEqual(['6', '5', '3', '2', '0']);
    expect(page.page).toEqual({ limit: 50, returned: 5, next_cursor: null, has_more: false });
  });

  it.each([
    ['active', ['6', '5', '3', '2', '0']],
    ['released', ['4', '1']],
    ['all', ['6', '5', '4', '3', '2', '1', '0']],
  ])('pages through status=%s, every hold once, has_more exact', async (status, expected) => {
    const { get } = await setup({ holds: stored });
    const pages = await all(get, status, 2);
    expect(pages.flatMap(ids)).toEqual(expected);
    expect(pages.map((p) => (p as unknown as { page: { has_more: boolean } }).page.has_more)).toEqual(
      pages.map((_, i) => i < pages.length - 1),
    );
  });

  it('refuses a cursor of another status, tenant or list, or altered: 422 naming cursor', async () => {
    const { get } = await setup({ holds: stored });
    const first = (await get(`${BASE}?limit=2`)).json();
    const position = { ts: holds[3]!.created_at.getTime(), id: holds[3]!.hold_id };
    const cursors = [
      encodeHoldsCursor(position, 'acme', 'released', SECRET),
      encodeHoldsCursor(position, 'other', 'active', SECRET),
      encodeJobsCursor(position, 'acme', SECRET),
      encodeHoldsCursor(position, 'acme', 'active', 'another-secret-0123456789abcdef0123'),
      `${first.page.next_cursor}x`,
      'x',
    ];
    for (const cursor of cursors) {
      const res = await get(`${BASE}?cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode, cursor).toBe(422);
      expect(fields(res)).toEqual(['cursor']);
    }
    expect((await get(`${BASE}?status=all&cursor=${first.page.next_cursor}`)).statusCode).toBe(422);
    expect(ids((await get(`${BASE}?cursor=${first.page.next_cursor}`)).json())).toEqual(['3', '2', '0']);
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['limit=x', ['limit']],
    ['status=open', ['status']],
    ['status=active&status=all', ['status']],
    ['patient_id=p-1', ['patient_id']],
  ])('refuses ?%s with 422 naming %j', async (query, expected) => {
    const res = await (await setup({ holds: stored })).get(`${BASE}?${query}`);
    expect(res.statusCode).toBe(422);
    expect(fields(res)).toEqual(expected);
  });

  it('needs audit:read, is refused to a narrowed viewer token, and answers 503 while Postgres is down', async () => {
    expect((await (await setup({ scopes: ['retention:write'] })).get(BASE)).statusCode).toBe(403);
    const narrowed = await setup({ narrowed: true });
    expect((await narrowed.get(BASE, narrowed.asViewer)).statusCode).toBe(403);
    const down = await setup({
      overrides: {
        retention: { ...memoryRetention(), holds: () => Promise.reject(new Error('ECONNREFUSED')) },
      },
    });
    expect((await down.get(BASE)).statusCode).toBe(503);
  });
});
