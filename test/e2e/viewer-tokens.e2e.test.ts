import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const { names, ingest: ingestProc, ch } = pipelineFixture('viewtok');
const gw = gatewayFixture(names);
const otherTenant = `${names.tenant}-other`;
const mine = Array.from({ length: 30 }, (_, i) => makeEvent(names.tenant, i));
const theirs = Array.from({ length: 5 }, (_, i) => makeEvent(otherTenant, i));
let issuer: string;
let db: pg.Pool;

interface Created {
  id: string;
  token: string;
  url: string;
  expires_at: string;
  scopes: string[];
  narrowed_to: Record<string, string>;
  frame_origins: string[];
}

async function viewerToken(body: unknown = {}, key = issuer): Promise<Created> {
  const res = await gw.send('POST', '/audit/viewer-tokens', key, body);
  expect(res.status, res.text).toBe(201);
  return JSON.parse(res.text) as Created;
}

const listed = async (token: string, query = '') => {
  const res = await gw.get(`/audit/events?limit=1000${query}`, token);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { events: { event_id: string; user_id: string; action: string }[] }).events;
};

beforeAll(async () => {
  issuer = await gw.mint(names.tenant, 'audit:read,viewer:issue');
  db = new pg.Pool({ connectionString: gw.databaseUrl(), max: 2 });
  expect((await ingest(ingestProc.url, names.ingestToken, [...mine, ...theirs])).status).toBe(202);
  await waitFor(
    'events stored',
    async () => (await countRows(ch, names.tenant)) >= 30 && (await countRows(ch, otherTenant)) === 5,
  );
});
afterAll(() => db.end());

describe('viewer tokens', () => {
  it("are made by a key with viewer:issue, read the key's tenant, and are kept only as a hash", async () => {
    const made = await viewerToken({ frame_origins: ['https://app.example.com'] });
    expect(made).toMatchObject({
      scopes: ['audit:read'],
      narrowed_to: {},
      frame_origins: ['https://app.example.com'],
    });
    expect(made.token).toMatch(/^vt_live_[0-9a-f]{16}_[0-9a-f]{32}$/);
    expect(made.url).toBe(`${gw.url()}/viewer/t/${made.id}#token=${made.token}`);
    const lifetime = Date.parse(made.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000);
    // The tenant's events (its audit events of the tokens made so far too), none of another tenant's.
    const ids = (await listed(made.token)).map((e) => e.event_id);
    expect(ids).toEqual(expect.arrayContaining(mine.map((e) => e.event_id)));
    for (const e of theirs) expect(ids).not.toContain(e.event_id);
    const { rows } = await db.query('SELECT * FROM viewer_tokens WHERE id = $1', [made.id]);
    expect(JSON.stringify(rows[0])).not.toContain(made.token.split('_')[3]);
    const self = await gw.get('/audit/viewer-tokens/current', made.token);
    expect(JSON.parse(self.text)).toEqual({
      id: made.id,
      expires_at: made.expires_at,
      scopes: ['audit:read'],
      narrowed_to: {},
    });
    expect((await gw.get('/audit/viewer-tokens/current', issuer)).status).toBe(404);
  });

  it('hold a narrowed reader to its filter in every read, and refuse a read that asks for more', async () => {
    const user = mine[3]!.user_id;
    const narrowed = await viewerToken({ narrowed_to: { user_id: user } });
    const own = mine.filter((e) => e.user_id === user).map((e) => e.event_id);
    expect((await listed(narrowed.token)).map((e) => e.event_id).sort()).toEqual([...own].sort());
    expect((await listed(narrowed.token, `&user_id=${user}`)).map((e) => e.event_id).sort()).toEqual(
      own.sort(),
    );
    const wider = await gw.get(`/audit/events?user_id=${mine[4]!.user_id}`, narrowed.token);
    expect(wider.status).toBe(403);
    expect(JSON.parse(wider.text)).toMatchObject({ error: 'forbidden', details: [{ field: 'user_id' }] });
    // An event outside the filter is the same 404 as one that does not exist.
    const outside = await gw.get(`/audit/events/${mine[4]!.event_id}`, narrowed.token);
    const missing = await gw.get('/audit/events/00000000-0000-4000-8000-000000000000', narrowed.token);
    expect(outside.status).toBe(404);
    expect(outside.text).toBe(missing.text);
    expect((await gw.get(`/audit/events/${mine[3]!.event_id}`, narrowed.token)).status).toBe(200);
    // Every route that cannot apply the filter refuses the token.
    for (const [method, path, body] of [
      ['POST', '/audit/export', {}],
      ['GET', '/audit/integrity/checkpoints', undefined],
      ['GET', '/audit/webhooks', undefined],
      ['GET', '/audit/exports', undefined],
    ] as const) {
      const res = await gw.send(method, path, narrowed.token, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
    }
    const self = JSON.parse((await gw.get('/audit/viewer-tokens/current', narrowed.token)).text);
    expect(self.narrowed_to).toEqual({ user_id: user });
  });

  it('pages a narrowed list with cursors bound to the narrowed filters', async () => {
    const narrowed = await viewerToken({ narrowed_to: { action_prefix: 'phi.' } });
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const res = await gw.get(`/audit/events?limit=4${cursor}`, narrowed.token);
      expect(res.status, res.text).toBe(200);
      const page = JSON.parse(res.text) as {
        events: { event_id: string; action: string }[];
        page: { next_cursor: string | null };
      };
      for (const e of page.events) expect(e.action.startsWith('phi.')).toBe(true);
      seen.push(...page.events.map((e) => e.event_id));
      if (!page.page.next_cursor) break;
      cursor = `&cursor=${encodeURIComponent(page.page.next_cursor)}`;
    }
    expect(seen.sort()).toEqual(
      mine
        .filter((e) => e.action.startsWith('phi.'))
        .map((e) => e.event_id)
        .sort(),
    );
  });

  it("give at most the key's scopes, never viewer:issue, and refuse bad requests without storing anything", async () => {
    const before = (await db.query('SELECT count(*)::int AS n FROM viewer_tokens')).rows[0].n;
    const lacking = await gw.send('POST', '/audit/viewer-tokens', issuer, {
      scopes: ['audit:read', 'audit:export'],
    });
    expect(lacking.status).toBe(403);
    expect(JSON.parse(lacking.text).message).toContain('audit:export');
    for (const body of [
      { scopes: ['viewer:issue'] },
      { narrowed_to: { user_id: '' } },
      { frame_origins: ['javascript:alert(1)'] },
      { ttl_seconds: 'forever' },
      '{"scopes":',
    ]) {
      const res = await gw.send('POST', '/audit/viewer-tokens', issuer, body);
      expect([400, 422], `${JSON.stringify(body)}: ${res.text}`).toContain(res.status);
    }
    const reader = await gw.mint(names.tenant, 'audit:read');
    expect((await gw.send('POST', '/audit/viewer-tokens', reader, {})).status).toBe(403);
    const token = await viewerToken();
    expect((await gw.send('POST', '/audit/viewer-tokens', token.token, {})).status).toBe(403);
    expect(
      (await gw.send('POST', '/audit/webhooks', token.token, { url: 'https://example.com' })).status,
    ).toBe(403);
    expect((await db.query('SELECT count(*)::int AS n FROM viewer_tokens')).rows[0].n).toBe(before + 1);
  });

  it('say so when expired, to the holder of the secret only, and die when revoked or when their key is', async () => {
    const token = await viewerToken();
    await db.query(
      "UPDATE viewer_tokens SET created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' WHERE id = $1",
      [token.id],
    );
    const expired = await gw.get('/audit/events', token.token);
    expect(expired.status).toBe(401);
    expect(JSON.parse(expired.text)).toEqual({
      error: 'token_expired',
      message: 'This viewer token has expired; ask for a new one.',
    });
    const guessed = await gw.get(
      '/audit/events',
      token.token.replace(/_[0-9a-f]{32}$/, `_${'0'.repeat(32)}`),
    );
    const unknown = await gw.get('/audit/events', `vt_live_${'1'.repeat(16)}_${'0'.repeat(32)}`);
    expect(guessed.status).toBe(401);
    expect(guessed.text).toBe(unknown.text);
    expect(JSON.parse(guessed.text).error).toBe('unauthorized');

    const revoked = await viewerToken();
    expect((await gw.send('DELETE', `/audit/viewer-tokens/${revoked.id}`, issuer)).status).toBe(204);
    expect((await gw.get('/audit/events', revoked.token)).status).toBe(401);
    expect((await gw.send('DELETE', `/audit/viewer-tokens/${revoked.id}`, issuer)).status).toBe(404);
    const foreignIssuer = await gw.mint(otherTenant, 'audit:read,viewer:issue');
    const theirsToken = await viewerToken({}, foreignIssuer);
    expect((await gw.send('DELETE', `/audit/viewer-tokens/${theirsToken.id}`, issuer)).status).toBe(404);
    expect((await gw.get('/audit/events', theirsToken.token)).status).toBe(200);

    const prefix = foreignIssuer.split('_')[2]!;
    await gw.ops('keys', 'revoke', '--prefix', prefix);
    await waitFor('the key revoked to reach its token', async () =>
      (await gw.get('/audit/events', theirsToken.token)).status === 401 ? true : undefined,
    );
  });

  it('are audited when made and revoked, with what they may do and never their secret', async () => {
    const made = await viewerToken({ narrowed_to: { resource_type: 'claim' }, ttl_seconds: 120 });
    expect((await gw.send('DELETE', `/audit/viewer-tokens/${made.id}`, issuer)).status).toBe(204);
    const events = await waitFor('the audit events of the token', async () => {
      const res = await gw.get(`/audit/events?resource_id=${made.id}`, issuer);
      const found = (
        JSON.parse(res.text) as { events: { action: string; details: string; user_id: string }[] }
      ).events;
      return found.length === 2 ? found : undefined;
    });
    expect(events.map((e) => e.action).sort()).toEqual([
      'admin.viewer_token.create',
      'admin.viewer_token.revoke',
    ]);
    const create = events.find((e) => e.action === 'admin.viewer_token.create')!;
    expect(JSON.parse(create.details)).toEqual({
      scopes: ['audit:read'],
      narrowed_to: { resource_type: 'claim' },
      frame_origins: [],
      expires_at: made.expires_at,
    });
    expect(create.user_id).toBe(`api_key:${issuer.split('_')[2]}`);
    expect(JSON.stringify(events)).not.toContain(made.token.split('_')[3]);
  });
});

describe('the viewer page', () => {
  it('may be framed only by the origins its token names, and loads only its own hashed assets', async () => {
    const made = await viewerToken({ frame_origins: ['https://app.example.com', 'http://127.0.0.1:3000'] });
    const page = await fetch(`${gw.url()}/viewer/t/${made.id}`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain('frame-ancestors https://app.example.com http://127.0.0.1:3000;');
    expect(csp).toContain("script-src 'self';");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).not.toContain(names.tenant);
    for (const id of ['0000000000000000', 'not-an-id']) {
      const other = await fetch(`${gw.url()}/viewer/t/${id}`);
      expect(other.status).toBe(200);
      expect(other.headers.get('content-security-policy')).toContain("frame-ancestors 'none';");
    }
    const assets = [...html.matchAll(/\/viewer\/assets\/(viewer-[A-Z0-9]+\.(?:js|css))/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const res = await fetch(`${gw.url()}/viewer/assets/${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
    }
    for (const path of [
      '/viewer/assets/index.html',
      '/viewer/assets/..%2f..%2fpackage.json',
      '/viewer/assets/nope.js',
    ]) {
      expect((await fetch(`${gw.url()}${path}`)).status, path).toBe(404);
    }
  });
});
