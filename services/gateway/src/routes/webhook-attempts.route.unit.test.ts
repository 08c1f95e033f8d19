import { afterAll, describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type Scope } from '@audit/shared/api-keys';
import { RFC3339_RULE } from '@audit/shared/contract';
import { type AttemptFilters, type AttemptPosition, type ListedAttempt } from '@audit/shared/webhooks';
import { storedKeyFor } from '@audit/shared/test-support';
import { openApiContract } from '../../../../test/support/openapi-contract.js';
import { buildApp } from '../app.js';
import { encodeAttemptsCursor, encodeCursor, encodeJobsCursor } from '../domain/cursor.js';
import { servedDocument } from '../test-support/served-document.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const auth = { authorization: `Bearer ${formatApiKey(key)}` };
const SECRET = stubAppOptions().cursorSecret;
const TENANT = 'acme';
const OWN = 'wh_0000abcd';
const OTHER_OWN = 'wh_0000abce';
const FOREIGN = 'wh_0000ffff';
const EVENT = '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90';
const T0 = Date.UTC(2026, 10, 21, 9, 30);
const contract = openApiContract(await servedDocument());

// Five attempts of one event, newest first as the store answers: three of them in one millisecond, told apart by
// their microseconds and their ids.
const stored: ListedAttempt[] = [
  { at: T0 + 2000, us: 0, id: '9', attempt: 3, ok: true },
  { at: T0 + 1000, us: 0, id: '8', attempt: 2, ok: false },
  { at: T0, us: 500, id: '5', attempt: 1, ok: false },
  { at: T0, us: 0, id: '7', attempt: 1, ok: false },
  { at: T0, us: 0, id: '6', attempt: 1, ok: false },
].map(({ at, us, id, attempt, ok }) => ({
  id,
  event_id: EVENT,
  attempt,
  attempted_at: new Date(at),
  attempted_at_us: at * 1000 + us,
  succeeded: ok,
  terminal: false,
  status_code: ok ? 204 : 503,
  error: ok ? null : 'status 503',
  latency_ms: 12,
  next_attempt_at: ok ? null : new Date(at + 1000),
  replay: false,
}));

const before = (a: ListedAttempt, p: AttemptPosition) =>
  a.attempted_at_us < p.attemptedAtUs ||
  (a.attempted_at_us === p.attemptedAtUs && BigInt(a.id) < BigInt(p.id));

type Call = {
  tenant: string;
  id: string;
  filters: AttemptFilters;
  after: AttemptPosition | null;
  limit: number;
};

const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

async function setup(opts: { scopes?: Scope[]; down?: boolean } = {}) {
  const calls: Call[] = [];
  const app = await buildApp(
    stubAppOptions({
      auth: {
        pepper: STUB_PEPPER,
        env: 'live',
        findKey: async () => storedKeyFor(key, STUB_PEPPER, { scopes: opts.scopes ?? ['audit:read'] }),
      },
      webhooks: {
        ...stubAppOptions().webhooks,
        attempts: async (tenant, id, filters, after, limit) => {
          calls.push({ tenant, id, filters, after, limit });
          if (opts.down) throw new Error('ECONNREFUSED');
          if (id === FOREIGN) return { found: false, reason: 'foreign' };
          if (id !== OWN && id !== OTHER_OWN) return { found: false, reason: 'missing' };
          const rest = stored.filter((a) => !after || before(a, after));
          return { found: true, value: rest.slice(0, limit) };
        },
      },
    }),
  );
  apps.push(app);
  const get = async (path: string) => {
    const res = await app.inject({ url: `/api/v2/public/audit/webhooks/${path}`, headers: auth });
    expect(
      contract.check('get', '/audit/webhooks/{id}/attempts', { ...res, status: res.statusCode }),
    ).toEqual([]);
    return res;
  };
  return { get, calls };
}

describe('GET /audit/webhooks/{id}/attempts', () => {
  it('answers the attempts newest first, each as the owner reads it', async () => {
    const { get, calls } = await setup();
    const res = await get(`${OWN}/attempts`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.page).toEqual({ limit: 100, returned: 5, next_cursor: null, has_more: false });
    expect(body.attempts[0]).toEqual({
      event_id: EVENT,
      attempt: 3,
      attempted_at: '2026-11-21T09:30:02.000+00:00',
      outcome: 'succeeded',
      terminal: false,
      status_code: 204,
      error: null,
      latency_ms: 12,
      next_attempt_at: null,
      replay: false,
    });
    expect(body.attempts[1]).toMatchObject({
      attempt: 2,
      outcome: 'failed',
      status_code: 503,
      error: 'status 503',
      next_attempt_at: '2026-11-21T09:30:02.000+00:00',
    });
    // One more than the page, to know exactly whether there is more.
    expect(calls).toEqual([{ tenant: TENANT, id: OWN, filters: {}, after: null, limit: 101 }]);
  });

  it('pages with the cursor it issues, across attempts made in the same millisecond', async () => {
    const { get, calls } = await setup();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`${OWN}/attempts?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const { attempts, page } = res.json() as {
        attempts: { attempt: number; attempted_at: string }[];
        page: { next_cursor: string | null; has_more: boolean; returned: number };
      };
      seen.push(...attempts.map((a) => `${a.attempt}@${a.attempted_at.slice(17, 23)}`));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['3@02.000', '2@01.000', '1@00.000', '1@00.000', '1@00.000']);
    // The cursor carries the last attempt's exact time (microseconds) and id.
    expect(calls.map((c) => c.after)).toEqual([
      null,
      { attemptedAtUs: (T0 + 1000) * 1000, id: '8' },
      { attemptedAtUs: T0 * 1000, id: '7' },
    ]);
  });

  it('passes each filter on, the event id in lowercase', async () => {
    const { get, calls } = await setup();
    const query = new URLSearchParams({
      event_id: EVENT.toUpperCase(),
      outcome: 'failed',
      since: '2026-11-21T10:30:00+01:00',
      until: '2026-11-21T09:31:00.000Z',
      limit: '1000',
    });
    expect((await get(`${OWN}/attempts?${query}`)).statusCode).toBe(200);
    expect((await get(`${OWN}/attempts?outcome=succeeded`)).statusCode).toBe(200);
    expect(calls.map((c) => c.filters)).toEqual([
      { eventId: EVENT, succeeded: false, since: T0, until: T0 + 60_000 },
      { succeeded: true },
    ]);
    expect(calls[0]!.limit).toBe(1001);
  });

  it.each([
    ['limit=0', 'limit', 'must be from 1 to 1000'],
    ['limit=1001', 'limit', 'must be from 1 to 1000'],
    ['limit=ten', 'limit', 'must be an integer from 1 to 1000'],
    [
      'cursor=x',
      'cursor',
      'is malformed, was altered, or was issued for another tenant, endpoint, list or filters',
    ],
    ['event_id=not-a-uuid', 'event_id', 'must be a UUID: 8-4-4-4-12 hex digits'],
    [`event_id=${EVENT}0`, 'event_id', 'must be a UUID: 8-4-4-4-12 hex digits'],
    ['outcome=ok', 'outcome', 'must be succeeded or failed'],
    ['since=yesterday', 'since', RFC3339_RULE],
    ['until=2026-11-21', 'until', RFC3339_RULE],
    ['since=2026-02-30T00:00:00Z', 'since', RFC3339_RULE],
    ['since=2026-11-21T00:00:00Z&until=2026-11-21T00:00:00Z', 'since', 'must be earlier than until'],
    ['since=2026-11-22T00:00:00Z&until=2026-11-21T00:00:00Z', 'since', 'must be earlier than until'],
    ['status=failed', 'status', 'unknown field'],
    ['outcome=failed&outcome=succeeded', 'outcome', 'must be given once'],
  ])('refuses %s (422 naming %s)', async (query, field, message) => {
    const { get, calls } = await setup();
    const res = await get(`${OWN}/attempts?${query}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toContainEqual({ field, message });
    expect(calls).toEqual([]);
  });

  it("refuses another list's, tenant's or endpoint's cursor, and one issued for other filters", async () => {
    const { get, calls } = await setup();
    const position = { ts: T0 * 1000, id: '7' };
    const failed = { succeeded: false };
    const foreign = [
      encodeAttemptsCursor(position, 'globex', OWN, failed, SECRET),
      encodeAttemptsCursor(position, TENANT, OTHER_OWN, failed, SECRET),
      encodeAttemptsCursor(position, TENANT, OWN, {}, SECRET),
      encodeAttemptsCursor(position, TENANT, OWN, { succeeded: true }, SECRET),
      encodeAttemptsCursor(position, TENANT, OWN, failed, 'another-secret-0123456789abcdef0123'),
      encodeCursor({ ts: T0, id: EVENT }, TENANT, {}, SECRET),
      encodeJobsCursor({ ts: T0, id: EVENT }, TENANT, SECRET),
    ];
    for (const cursor of foreign) {
      const res = await get(`${OWN}/attempts?outcome=failed&cursor=${cursor}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        {
          field: 'cursor',
          message: 'is malformed, was altered, or was issued for another tenant, endpoint, list or filters',
        },
      ]);
    }
    expect(calls).toEqual([]);
    // The same cursor, issued for this tenant, endpoint and filters, is taken.
    const own = encodeAttemptsCursor(position, TENANT, OWN, failed, SECRET);
    expect((await get(`${OWN}/attempts?outcome=failed&cursor=${own}`)).statusCode).toBe(200);
    expect(calls[0]!.after).toEqual({ attemptedAtUs: T0 * 1000, id: '7' });
  });

  it("answers another tenant's endpoint 403, and an unknown or malformed id 404, as disable and delete do", async () => {
    const { get, calls } = await setup();
    const foreign = await get(`${FOREIGN}/attempts`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({
      error: 'forbidden',
      message: 'This webhook endpoint belongs to another tenant.',
    });
    const missing = await get('wh_0000beef/attempts');
    expect(missing.statusCode).toBe(404);
    for (const malformed of ['wh_0000ABCD', 'wh_123', 'nope', '..%2Fwh_0000abcd']) {
      const res = await get(`${malformed}/attempts`);
      expect(res.statusCode, malformed).toBe(404);
      expect(res.body).toBe(missing.body);
    }
    expect(calls.map((c) => c.id)).toEqual([FOREIGN, 'wh_0000beef']);
  });

  it('needs audit:read, and answers 503 while Postgres is down', async () => {
    const writer = await setup({ scopes: ['webhooks:write'] });
    expect((await writer.get(`${OWN}/attempts`)).statusCode).toBe(403);
    expect(writer.calls).toEqual([]);
    const down = await setup({ down: true });
    const res = await down.get(`${OWN}/attempts`);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
  });
});
