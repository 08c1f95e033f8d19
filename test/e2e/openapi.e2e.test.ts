import { beforeAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent } from '../support/events.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { nonPortablePatterns, openApiContract, type Observed } from '../support/openapi-contract.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const { names, ingest: ingestProc, ch } = pipelineFixture('openapi');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const events = Array.from({ length: 12 }, (_, i) => makeEvent(names.tenant, i));
let key: string;
let contract: ReturnType<typeof openApiContract>;

const observed = async (res: Response): Promise<Observed> => ({
  status: res.status,
  headers: Object.fromEntries(res.headers),
  body: await res.text(),
});

async function call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: string): Promise<Observed> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return observed(await fetch(`${gw.url()}/api/v2/public${path}`, { method, headers, body }));
}

beforeAll(async () => {
  key = await gw.mint(names.tenant, 'audit:read,audit:export,webhooks:write');
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  // Minting the key wrote its admin.key.create event into the same tenant's trail.
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) === events.length + 1);
});

describe('GET /api/v2/public/openapi.json', () => {
  it('is served without a key, and the running service answers as it documents', async () => {
    const res = await fetch(`${gw.url()}/api/v2/public/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.openapi).toBe('3.1.0');
    expect(nonPortablePatterns(doc)).toEqual([]);
    contract = openApiContract(doc);

    const first = await call('GET', '/audit/events?limit=5');
    const page = JSON.parse(first.body) as { page: { next_cursor: string } };
    const checks: [string, string, Observed][] = [
      ['get', '/audit/events', first],
      [
        'get',
        '/audit/events',
        await call('GET', `/audit/events?cursor=${encodeURIComponent(page.page.next_cursor)}&limit=5`),
      ],
      ['get', '/audit/events', await call('GET', '/audit/events?limit=5000&cursor=x')],
      ['get', '/audit/events/{event_id}', await call('GET', `/audit/events/${events[3]!.event_id}`)],
      ['get', '/audit/events/{event_id}', await call('GET', '/audit/events/nope')],
      ['post', '/audit/export', await call('POST', '/audit/export', '{"phi_involved":true}')],
      ['post', '/audit/export', await call('POST', '/audit/export?format=ndjson')],
      ['post', '/audit/export', await call('POST', '/audit/export', '{"until":"yesterday"}')],
      ['get', '/audit/events', await observed(await fetch(`${gw.url()}/api/v2/public/audit/events`))],
    ];
    const created = await call(
      'POST',
      '/audit/webhooks',
      '{"url":"http://127.0.0.1:9999/h","event_filter":["phi."]}',
    );
    const id = (JSON.parse(created.body) as { endpoint: { id: string } }).endpoint.id;
    checks.push(
      ['post', '/audit/webhooks', created],
      ['post', '/audit/webhooks', await call('POST', '/audit/webhooks', '{"url":"https://10.0.0.1/"}')],
      ['get', '/audit/webhooks', await call('GET', '/audit/webhooks')],
      ['post', '/audit/webhooks/{id}/disable', await call('POST', `/audit/webhooks/${id}/disable`)],
      ['post', '/audit/webhooks/{id}/disable', await call('POST', '/audit/webhooks/wh_00000000/disable')],
      ['delete', '/audit/webhooks/{id}', await call('DELETE', `/audit/webhooks/${id}`)],
      ['delete', '/audit/webhooks/{id}', await call('DELETE', `/audit/webhooks/${id}`)],
    );
    expect(checks.map(([, , o]) => o.status)).toEqual([
      200, 200, 422, 200, 404, 200, 200, 422, 401, 201, 422, 200, 200, 404, 204, 404,
    ]);
    for (const [method, path, o] of checks)
      expect(contract.check(method, path, o), `${method} ${path} ${o.status}`).toEqual([]);
  });
});
