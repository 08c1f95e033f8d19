import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretBox } from '@audit/shared/webhooks';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { TEST_WEBHOOK_SECRET_KEY, LOOPBACK_TARGETS } from '../support/stack.js';
import { storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const { names, ch } = pipelineFixture('whapi');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const other = `${names.tenant}-other`;
const capped = `${names.tenant}-capped`;
let writer: string;
let readOnly: string;
let writeOnly: string;
let otherWriter: string;
let db: pg.Client;

type Created = { endpoint: Record<string, unknown> & { id: string }; secret: string };
const create = async (key: string, body: unknown) => gw.send('POST', '/audit/webhooks', key, body);
const created = async (key: string, body: unknown): Promise<Created> => {
  const res = await create(key, body);
  expect(res.status, res.text).toBe(201);
  return JSON.parse(res.text) as Created;
};
const listed = async (key: string) =>
  (
    JSON.parse((await gw.send('GET', '/audit/webhooks', key)).text) as {
      endpoints: Record<string, unknown>[];
    }
  ).endpoints;
const fieldsOf = (text: string) =>
  (JSON.parse(text) as { details: { field: string }[] }).details.map((d) => d.field);

beforeAll(async () => {
  writer = await gw.mint(names.tenant, 'audit:read,webhooks:write');
  readOnly = await gw.mint(names.tenant, 'audit:read');
  writeOnly = await gw.mint(names.tenant, 'webhooks:write');
  otherWriter = await gw.mint(other, 'audit:read,webhooks:write');
  db = new pg.Client({ connectionString: gw.databaseUrl() });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
});

describe('POST /audit/webhooks', () => {
  it('creates an active endpoint, returns its secret once, and stores the secret only sealed', async () => {
    const body = { url: 'http://127.0.0.1:9999/hook', event_filter: ['phi.', 'admin.'], description: 'SIEM' };
    const res = await created(writer, body);
    expect(res.endpoint).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-f]{8}$/),
      ...body,
      patient_filter: [],
      active: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
      rate_limit_per_second: null,
    });
    expect(res.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await listed(writer)).toContainEqual({
      ...res.endpoint,
      consecutive_failures: 0,
      last_delivery_at: null,
      previous_secret_expires_at: null,
    });

    const { rows } = await db.query<{ secret_sealed: Buffer }>(
      'SELECT secret_sealed FROM webhook_endpoints WHERE id = $1',
      [res.endpoint.id],
    );
    expect(rows[0]!.secret_sealed.includes(Buffer.from(res.secret))).toBe(false);
    const box = secretBox(Buffer.from(TEST_WEBHOOK_SECRET_KEY, 'hex'));
    expect(box.open(rows[0]!.secret_sealed, `${res.endpoint.id}|${names.tenant}`)).toBe(res.secret);
  });

  it('defaults the filters to every event, the description to empty and the rate to no limit', async () => {
    const res = await created(writer, { url: 'http://127.0.0.1:9999/all' });
    expect(res.endpoint).toMatchObject({
      event_filter: [],
      patient_filter: [],
      description: '',
      rate_limit_per_second: null,
    });
    const limited = await created(writer, { url: 'http://127.0.0.1:9999/limited', rate_limit_per_second: 5 });
    expect(limited.endpoint.rate_limit_per_second).toBe(5);
    expect((await listed(writer)).find((e) => e.id === limited.endpoint.id)).toMatchObject({
      rate_limit_per_second: 5,
    });
  });

  it.each([
    [{}, ['url']],
    [{ url: 'ftp://127.0.0.1/' }, ['url']],
    [{ url: 'https://user:pw@127.0.0.1/' }, ['url']],
    [{ url: `https://127.0.0.1/${'a'.repeat(2048)}` }, ['url']],
    [{ url: 'not a url' }, ['url']],
    [{ url: 'https://10.0.0.1/' }, ['url']],
    [{ url: 'https://169.254.169.254/latest/meta-data/' }, ['url']],
    [{ url: 'https://[::1]/' }, ['url']],
    [{ url: 'https://[::ffff:a9fe:a9fe]/' }, ['url']],
    [{ url: 'https://0xa000001/' }, ['url']],
    [{ url: 'https://no-such-host.invalid/' }, ['url']],
    [{ url: 'http://127.0.0.1/', event_filter: ['PHI.'] }, ['event_filter.0']],
    [{ url: 'http://127.0.0.1/', event_filter: [''] }, ['event_filter.0']],
    [{ url: 'http://127.0.0.1/', event_filter: Array.from({ length: 51 }, () => 'phi.') }, ['event_filter']],
    [{ url: 'http://127.0.0.1/', event_filter: 'phi.' }, ['event_filter']],
    [{ url: 'http://127.0.0.1/', description: 'x'.repeat(501) }, ['description']],
    [{ url: 'http://127.0.0.1/', secret: 'mine' }, ['secret']],
    [{ url: 42, active: false }, ['url', 'active']],
    [{ url: 'http://127.0.0.1:9999/h\took' }, ['url']],
    [{ url: 'http://127.0.0.1:9999/h ok' }, ['url']],
    [{ url: 'http://127.0.0.1/', description: 'a\u0000b' }, ['description']],
    [{ url: 'http://127.0.0.1/', description: '\ud800' }, ['description']],
    [{ url: 'http://127.0.0.1/', rate_limit_per_second: 0 }, ['rate_limit_per_second']],
    [{ url: 'http://127.0.0.1/', rate_limit_per_second: 10_001 }, ['rate_limit_per_second']],
    [{ url: 'http://127.0.0.1/', rate_limit_per_second: 2.5 }, ['rate_limit_per_second']],
  ])('refuses %j with a 422 naming %j, and creates nothing', async (body, fields) => {
    const before = (await listed(writer)).length;
    const res = await create(writer, body);
    expect(res.status, res.text).toBe(422);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'invalid_request' });
    expect(fieldsOf(res.text)).toEqual(fields);
    expect(await listed(writer)).toHaveLength(before);
  });

  it('answers malformed JSON with 400, another media type with 415, a missing scope with 403', async () => {
    expect((await create(writer, '{"url":')).status).toBe(400);
    const plain = await fetch(`${gw.url()}/api/v2/public/audit/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'text/plain' },
      body: 'http://127.0.0.1/',
    });
    expect(plain.status).toBe(415);
    const denied = await create(readOnly, { url: 'http://127.0.0.1:9999/' });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text).message).toContain('webhooks:write');
    expect((await gw.send('GET', '/audit/webhooks', writeOnly)).status).toBe(403);
  });

  it('holds the cap of 100 endpoints per tenant, also under concurrent creation', async () => {
    const key = await gw.mint(capped, 'audit:read,webhooks:write');
    for (let i = 0; i < 97; i++) await created(key, { url: `http://127.0.0.1:9999/${i}` });
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create(key, { url: `http://127.0.0.1:9999/burst-${i}` })),
    );
    expect(burst.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
    expect(JSON.parse(burst.find((r) => r.status === 409)!.text).error).toBe('limit_reached');
    expect(await listed(key)).toHaveLength(100);
  });
});

describe('disable and delete', () => {
  it('disables idempotently, keeps the endpoint listed, and refuses other tenants and unknown ids', async () => {
    const { endpoint } = await created(writer, { url: 'http://127.0.0.1:9999/to-disable' });
    const path = `/audit/webhooks/${endpoint.id}/disable`;
    expect((await gw.send('POST', path, otherWriter)).status).toBe(403);
    const first = await gw.send('POST', path, writer);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text)).toEqual({ ...endpoint, active: false });
    const again = await gw.send('POST', path, writer, {});
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect((await listed(writer)).find((e) => e.id === endpoint.id)).toMatchObject({ active: false });
    expect((await gw.send('POST', path, writer, { active: true })).status).toBe(422);
    expect((await gw.send('POST', '/audit/webhooks/wh_00000000/disable', writer)).status).toBe(404);
    expect((await gw.send('POST', '/audit/webhooks/nope/disable', writer)).status).toBe(404);
    expect((await gw.send('POST', path, readOnly)).status).toBe(403);
  });

  it('deletes the endpoint with its delivery history, for its own tenant only', async () => {
    const { endpoint } = await created(writer, { url: 'http://127.0.0.1:9999/to-delete' });
    await db.query(
      `INSERT INTO webhook_delivery_attempts (endpoint_id, event_id, attempt, attempted_at, succeeded, latency_ms)
       VALUES ($1, gen_random_uuid(), 1, now(), false, 5), ($1, gen_random_uuid(), 1, now(), true, 7)`,
      [endpoint.id],
    );
    const path = `/audit/webhooks/${endpoint.id}`;
    expect((await gw.send('DELETE', path, otherWriter)).status).toBe(403);
    expect((await gw.send('DELETE', path, writer, { force: true })).status).toBe(422);
    const res = await gw.send('DELETE', path, writer);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await listed(writer)).some((e) => e.id === endpoint.id)).toBe(false);
    const rows = await db.query('SELECT 1 FROM webhook_delivery_attempts WHERE endpoint_id = $1', [
      endpoint.id,
    ]);
    expect(rows.rowCount).toBe(0);
    expect((await gw.send('DELETE', path, writer)).status).toBe(404);
  });

  it("never shows one tenant another tenant's endpoints", async () => {
    const mine = await listed(writer);
    const theirs = await listed(otherWriter);
    expect(mine.length).toBeGreaterThan(0);
    expect(theirs).toEqual([]);
  });

  it("shows a reader without webhooks:write each URL without its query, the receiver's token", async () => {
    const url = 'http://127.0.0.1:9999/hooks/in?token=s3cr3t-receiver-token&x=1';
    const { endpoint } = await created(writer, { url });
    const [asReader, asWriter] = [await listed(readOnly), await listed(writer)].map((all) =>
      all.find((e) => e.id === endpoint.id),
    );
    expect(asReader?.url).toBe('http://127.0.0.1:9999/hooks/in?REDACTED');
    expect(asWriter?.url).toBe(url);
  });
});

describe('PATCH /audit/webhooks/{id}', () => {
  const patch = (key: string, id: string, body: unknown) =>
    gw.send('PATCH', `/audit/webhooks/${id}`, key, body);

  it('changes description, filter, URL and rate, keeps the rest, and writes admin.webhook.update', async () => {
    const { endpoint } = await created(writer, {
      url: 'http://127.0.0.1:9999/before',
      event_filter: ['phi.'],
      description: 'before',
    });
    const first = await patch(writer, endpoint.id, {
      description: 'after',
      event_filter: ['admin.', 'phi.read'],
    });
    expect(first.status, first.text).toBe(200);
    expect(JSON.parse(first.text)).toEqual({
      ...endpoint,
      description: 'after',
      event_filter: ['admin.', 'phi.read'],
    });
    const second = await patch(writer, endpoint.id, {
      url: 'http://127.0.0.1:9999/after?token=s3cr3t-patch',
      rate_limit_per_second: 50,
    });
    expect(second.status, second.text).toBe(200);
    const changed = {
      ...endpoint,
      url: 'http://127.0.0.1:9999/after?token=s3cr3t-patch',
      description: 'after',
      event_filter: ['admin.', 'phi.read'],
      rate_limit_per_second: 50,
    };
    expect(JSON.parse(second.text)).toEqual(changed);
    expect((await listed(writer)).find((e) => e.id === endpoint.id)).toMatchObject(changed);
    const removed = await patch(writer, endpoint.id, { rate_limit_per_second: null });
    expect(JSON.parse(removed.text)).toEqual({ ...changed, rate_limit_per_second: null });
    const { rows } = await db.query<{ version: number }>(
      'SELECT version FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(rows[0]!.version).toBe(4);

    const updates = async () =>
      (await storedEvents(ch, names.tenant)).filter(
        (e) => e.resource_id === endpoint.id && e.action === 'admin.webhook.update',
      );
    await waitFor('three update events', async () => (await updates()).length === 3);
    const details = (await updates())
      .map((e) => e.details as { endpoint_version: number })
      .sort((a, b) => a.endpoint_version - b.endpoint_version);
    expect(details).toEqual([
      expect.objectContaining({
        endpoint_id: endpoint.id,
        target: 'http://127.0.0.1:9999/before',
        changed: ['event_filter', 'description'],
        description: 'after',
        event_filter: ['admin.', 'phi.read'],
        endpoint_version: 2,
      }),
      expect.objectContaining({
        target: 'http://127.0.0.1:9999/after',
        url_sha256: expect.any(String),
        changed: ['url', 'rate_limit_per_second'],
        rate_limit_per_second: 50,
        endpoint_version: 3,
      }),
      expect.objectContaining({
        changed: ['rate_limit_per_second'],
        rate_limit_per_second: null,
        endpoint_version: 4,
      }),
    ]);
    expect(JSON.stringify(await updates())).not.toContain('s3cr3t-patch');
  });

  it('refuses what creation refuses, a target the guard refuses included, and changes nothing', async () => {
    const { endpoint } = await created(writer, { url: 'http://127.0.0.1:9999/guarded' });
    // This gateway opens 127.0.0.0/8 (LOOPBACK_TARGETS); every other internal range stays refused.
    for (const [body, fields] of [
      [{}, ['(body)']],
      [{ url: 'https://10.0.0.1/' }, ['url']],
      [{ url: 'https://169.254.169.254/latest/meta-data/' }, ['url']],
      [{ url: 'https://[::1]/' }, ['url']],
      [{ url: 'https://no-such-host.invalid/' }, ['url']],
      [{ url: 'ftp://127.0.0.1/' }, ['url']],
      [{ event_filter: ['PHI.'] }, ['event_filter.0']],
      [{ description: 'x'.repeat(501) }, ['description']],
      [{ rate_limit_per_second: 0 }, ['rate_limit_per_second']],
      [{ active: true }, ['active', '(body)']],
    ] as const) {
      const res = await patch(writer, endpoint.id, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(422);
      expect(fieldsOf(res.text)).toEqual(fields);
    }
    const refused = await patch(writer, endpoint.id, { url: 'https://10.0.0.1/' });
    expect(JSON.parse(refused.text).details).toEqual([
      {
        field: 'url',
        message:
          'host is not an allowed webhook target: it must resolve, within 2 s, to public addresses only',
      },
    ]);
    expect((await listed(writer)).find((e) => e.id === endpoint.id)).toMatchObject({
      url: 'http://127.0.0.1:9999/guarded',
      description: '',
    });
  });

  it("answers 403 for another tenant's endpoint, 404 for an unknown one, and changes an inactive one", async () => {
    const { endpoint } = await created(writer, { url: 'http://127.0.0.1:9999/owned' });
    expect((await patch(otherWriter, endpoint.id, { description: 'theirs' })).status).toBe(403);
    expect((await patch(writer, 'wh_00000000', { description: 'x' })).status).toBe(404);
    expect((await patch(writer, 'nope', { description: 'x' })).status).toBe(404);
    expect((await patch(readOnly, endpoint.id, { description: 'x' })).status).toBe(403);
    await gw.send('POST', `/audit/webhooks/${endpoint.id}/disable`, writer);
    const res = await patch(writer, endpoint.id, { description: 'retired' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ active: false, description: 'retired' });
  });
});

describe('audit trail of webhook changes', () => {
  it('writes admin.webhook.create, disable and delete events, never with the secret', async () => {
    const { endpoint, secret } = await created(writer, {
      url: 'http://127.0.0.1:9999/audited?token=s3cr3t-query',
    });
    await gw.send('POST', `/audit/webhooks/${endpoint.id}/disable`, writer);
    await gw.send('DELETE', `/audit/webhooks/${endpoint.id}`, writer);
    const forEndpoint = async () =>
      (await storedEvents(ch, names.tenant)).filter((e) => e.resource_id === endpoint.id);
    await waitFor('webhook audit events', async () => (await forEndpoint()).length === 3);
    const events = await forEndpoint();
    expect(events.map((e) => e.action).sort()).toEqual([
      'admin.webhook.create',
      'admin.webhook.delete',
      'admin.webhook.disable',
    ]);
    for (const e of events) {
      expect(e).toMatchObject({ resource_type: 'webhook_endpoint', user_role: 'api_key', success: true });
      expect(JSON.stringify(e)).not.toContain(secret);
      // Receivers put tokens in queries: the trail keeps origin and path, and a digest of the whole URL.
      expect(JSON.stringify(e)).not.toContain('s3cr3t-query');
      expect(e.details).toMatchObject({
        target: 'http://127.0.0.1:9999/audited',
        url_sha256: expect.any(String),
      });
    }
    const logs = readdirSync('.data/test-logs').filter((f) => f.startsWith(`${names.id}-gateway`));
    for (const f of logs) expect(readFileSync(`.data/test-logs/${f}`, 'utf8')).not.toContain(secret);
  });
});
