import { beforeAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { newestFirst, pageThrough, type Listed, type Page } from '../support/paging.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const { names, ingest: ingestProc, ch } = pipelineFixture('gwlist');
const gw = gatewayFixture(names);
const otherTenant = `${names.tenant}-other`;
const BASE = Date.now() - 10 * 86_400_000;

// Three events per millisecond, 37 minutes apart: ties to break by id, and pages that span days.
const at = (tenant: string, i: number): TestEvent => ({
  ...makeEvent(tenant, i),
  timestamp: new Date(BASE + Math.floor(i / 3) * 37 * 60_000).toISOString(),
});
const mine = Array.from({ length: 300 }, (_, i) => at(names.tenant, i));
const theirs = Array.from({ length: 60 }, (_, i) => at(otherTenant, i));

// The oracle: the tenant's rows read straight from ClickHouse (our key's admin.key.create event included), in
// the documented order computed here, not by the code under test.
let stored: Listed[] = [];

let reader: string;

const idsOf = async (query: string, key = reader) =>
  (await pageThrough(gw.get, query, key)).map((e) => e.event_id);

beforeAll(async () => {
  reader = await gw.mint(names.tenant, 'audit:read');
  expect((await ingest(ingestProc.url, names.ingestToken, [...mine, ...theirs])).status).toBe(202);
  // 300 events plus the admin.key.create event of the key minted above, which is part of the tenant's trail.
  await waitFor('events stored', async () => {
    const counts = [await countRows(ch, names.tenant), await countRows(ch, otherTenant)];
    if (counts[0] !== 301 || counts[1] !== 60) throw new Error(`counts ${counts.join('/')}`);
    return true;
  });
  stored = await storedEvents(ch, names.tenant);
  expect(stored.filter((e) => e.resource_type === 'api_key')).toHaveLength(1);
});

describe('GET /api/v2/public/audit/events', () => {
  it.each([1, 7, 100, 1000])(
    "pages with limit %i through exactly the tenant's events, newest first, no gap or repeat",
    async (limit) => {
      expect(await idsOf(`limit=${limit}`)).toEqual([...stored].sort(newestFirst).map((e) => e.event_id));
    },
  );

  it('returns the default page of 100 with the page descriptor', async () => {
    const res = await gw.get('/audit/events', reader);
    const body = JSON.parse(res.text) as Page;
    expect(body.page).toMatchObject({ limit: 100, returned: 100, has_more: true });
    expect(typeof body.page.next_cursor).toBe('string');
  });

  it.each([
    ['action=phi.read', (e: Listed) => e.action === 'phi.read'],
    ['resource_type=upload', (e: Listed) => e.resource_type === 'upload'],
    ['phi_involved=false', (e: Listed) => !e.phi_involved],
    ['phi_involved=true&action=phi.query', (e: Listed) => e.phi_involved && e.action === 'phi.query'],
  ])('filters by %s', async (query, keep) => {
    const expected = stored
      .filter(keep)
      .sort(newestFirst)
      .map((e) => e.event_id);
    expect(expected.length).toBeGreaterThan(10);
    expect(await idsOf(`${query}&limit=7`)).toEqual(expected);
  });

  it('filters by a time window: since inclusive, until exclusive', async () => {
    const sorted = [...stored].sort(newestFirst);
    const since = sorted[200]!.timestamp;
    const until = sorted[50]!.timestamp;
    const expected = stored
      .filter((e) => e.timestamp >= since && e.timestamp < until)
      .sort(newestFirst)
      .map((e) => e.event_id);
    expect(expected.length).toBeGreaterThan(100);
    expect(await idsOf(`since=${since}&until=${until}&limit=13`)).toEqual(expected);
  });

  it('refuses a cursor that was altered, reused with other filters, or used by another tenant', async () => {
    const first = JSON.parse((await gw.get('/audit/events?limit=5&action=phi.read', reader)).text) as Page;
    const cursor = first.page.next_cursor!;
    const otherKey = await gw.mint(otherTenant, 'audit:read');
    const altered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    for (const [path, key] of [
      [`/audit/events?limit=5&action=phi.read&cursor=${encodeURIComponent(altered)}`, reader],
      [`/audit/events?limit=5&action=phi.query&cursor=${encodeURIComponent(cursor)}`, reader],
      [`/audit/events?limit=5&cursor=${encodeURIComponent(cursor)}`, reader],
      [`/audit/events?limit=5&action=phi.read&cursor=${encodeURIComponent(cursor)}`, otherKey],
      ['/audit/events?cursor=garbage', reader],
    ] as const) {
      const res = await gw.get(path, key);
      expect(res.status, path).toBe(422);
      expect(JSON.parse(res.text).details).toEqual([{ field: 'cursor', message: expect.any(String) }]);
    }
    expect(
      (await gw.get(`/audit/events?limit=10&action=phi.read&cursor=${encodeURIComponent(cursor)}`, reader))
        .status,
    ).toBe(200);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=ten', 'limit'],
    ['phi_involved=yes', 'phi_involved'],
    ['action=PHI', 'action'],
    ['since=yesterday', 'since'],
    ['since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z', 'since'],
    ['tenant_id=someone-else', 'tenant_id'],
    ['action=phi.read&action=phi.query', 'action'],
  ])('answers 422 for %s, naming %s', async (query, field) => {
    const res = await gw.get(`/audit/events?${query}`, reader);
    expect(res.status).toBe(422);
    const body = JSON.parse(res.text) as { error: string; details: { field: string }[] };
    expect(body.error).toBe('invalid_request');
    expect(body.details.map((d) => d.field)).toContain(field);
  });
});
