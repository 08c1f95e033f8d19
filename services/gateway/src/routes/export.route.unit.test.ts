import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import type { PagePosition } from '../domain/cursor.js';
import type { EventFilters } from '../domain/event-filters.js';
import type { EventRow } from '../domain/audit-event.view.js';
import { eventRow } from '../test-support/event-row.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const stored = { ...storedKeyFor(key, STUB_PEPPER), scopes: ['audit:export' as const] };
const NEWEST = Date.UTC(2026, 10, 24, 12);

const row = (i: number) => eventRow(i, 'tenant-a', NEWEST);

/** The events port over rows held in list order: the route's reads, answered as the reader would. */
function tableOf(rows: EventRow[]) {
  const after = (r: EventRow, p: PagePosition | null) =>
    !p || Number(r.ts) < p.ts || (Number(r.ts) === p.ts && r.event_id < p.id);
  const read = async (_t: string, f: EventFilters, p: PagePosition | null, want: number) =>
    rows
      .filter((r) => after(r, p) && Number(r.ts) >= (f.since ?? 0) && Number(r.ts) < (f.until ?? Infinity))
      .slice(0, want);
  return { findEvent: async () => null, listPage: read, listKeys: read };
}

async function exportOf(rows: EventRow[], format: 'json' | 'ndjson') {
  const app = await buildApp(
    stubAppOptions({
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
      events: tableOf(rows),
      clock: () => NEWEST + 1000,
    }),
  );
  const res = await app.inject({
    method: 'POST',
    url: `/api/v2/public/audit/export?format=${format}`,
    headers: { authorization: `Bearer ${formatApiKey(key)}` },
    payload: {},
  });
  await app.close();
  return res;
}

describe('POST /audit/export, as the route streams it', () => {
  // 1,000 rows are two full chunks of 500 and an empty read; 1,234 end inside a chunk.
  it.each([1000, 1234])('sends each of %i rows once, in list order, as NDJSON and as JSON', async (n) => {
    const rows = Array.from({ length: n }, (_, i) => row(i));
    const ids = rows.map((r) => r.event_id);
    const ndjson = await exportOf(rows, 'ndjson');
    expect(ndjson.statusCode, ndjson.body.slice(0, 300)).toBe(200);
    const lines = ndjson.body.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as { event_id: string }).event_id)).toEqual(ids);
    const json = (await exportOf(rows, 'json')).json<{ events: { event_id: string }[]; count: number }>();
    expect(json.events.map((e) => e.event_id)).toEqual(ids);
    expect(json.count).toBe(n);
  });

  it('answers an export of nothing with an empty NDJSON body and a JSON envelope of none', async () => {
    expect((await exportOf([], 'ndjson')).body).toBe('');
    expect((await exportOf([], 'json')).json()).toEqual({ events: [], count: 0, truncated: false });
  });
});
