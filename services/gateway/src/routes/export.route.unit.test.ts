import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared/api-keys';
import { type EventRow } from '@audit/shared/contract';
import { type EventFilters } from '@audit/shared/projection';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import type { PagePosition } from '../domain/cursor.js';
import { eventRow } from '../test-support/event-row.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const stored = { ...storedKeyFor(key, STUB_PEPPER), scopes: ['audit:export' as const] };
const NEWEST = Date.UTC(2026, 10, 24, 12);

const row = (i: number) => eventRow(i, 'tenant-a', NEWEST);

/** The events port over rows held in list order: the route's reads, answered as the reader would. */
function tableOf(rows: EventRow[], reads: number[] = []) {
  const after = (r: EventRow, p: PagePosition | null) =>
    !p || Number(r.ts) < p.ts || (Number(r.ts) === p.ts && r.event_id < p.id);
  const read = async (_t: string, f: EventFilters, p: PagePosition | null, want: number) =>
    rows
      .filter((r) => after(r, p) && Number(r.ts) >= (f.since ?? 0) && Number(r.ts) < (f.until ?? Infinity))
      .slice(0, want);
  return {
    findEvent: async () => null,
    wasStored: async () => false,
    listPage: async (t: string, f: EventFilters, p: PagePosition | null, want: number) => {
      reads.push(want);
      return read(t, f, p, want);
    },
    listKeys: async (t: string, f: EventFilters, p: PagePosition | null, want: number) =>
      (await read(t, f, p, want)).map((r) => ({
        ts: r.ts,
        event_id: r.event_id,
        bytes: String(
          r.details.length + r.user_agent.length + r.justification.length + r.fields_accessed.length,
        ),
      })),
  };
}

async function exportOf(rows: EventRow[], format: 'json' | 'ndjson', reads: number[] = []) {
  const app = await buildApp(
    stubAppOptions({
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
      events: tableOf(rows, reads),
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
  // 4,000 rows are two reads of 2,000, the last asking one more; 1,234 are one read.
  it.each([4000, 1234])('sends each of %i rows once, in list order, as NDJSON and as JSON', async (n) => {
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

  it('reads rows of large text fields fewer at a time, and small ones up to 2,000 a read', async () => {
    const large = Array.from({ length: 20 }, (_, i) => ({ ...row(i), details: 'x'.repeat(1024 * 1024) }));
    const reads: number[] = [];
    const res = await exportOf(large, 'ndjson', reads);
    expect(res.body.trim().split('\n')).toHaveLength(20);
    // 8 MiB a read: seven rows of a little over 1 MiB, then the rest; the last read asks one row more than
    // planned, and comes back short.
    expect(reads).toEqual([7, 7, 7]);
    const small: number[] = [];
    await exportOf(
      Array.from({ length: 4500 }, (_, i) => row(i)),
      'ndjson',
      small,
    );
    expect(small).toEqual([2000, 2000, 501]);
  });

  it('reads on past the plan while the range holds rows ingested meanwhile', async () => {
    const planned = Array.from({ length: 1000 }, (_, i) => row(i * 2));
    // Back-dated events that arrive after the keys were read: between the planned ones, inside the range.
    const late = Array.from({ length: 5 }, (_, i) => row(i * 2 + 1));
    const all = [...planned, ...late].sort((a, b) => Number(b.ts) - Number(a.ts));
    const reads: number[] = [];
    const table = tableOf(all, reads);
    const app = await buildApp(
      stubAppOptions({
        auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
        events: { ...table, listKeys: tableOf(planned).listKeys },
        clock: () => NEWEST + 1000,
      }),
    );
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/public/audit/export?format=json',
      headers: { authorization: `Bearer ${formatApiKey(key)}` },
      payload: {},
    });
    await app.close();
    const body = res.json<{ events: { event_id: string }[]; count: number; truncated: boolean }>();
    expect(body.events.map((e) => e.event_id)).toEqual(all.map((r) => r.event_id));
    expect(body).toMatchObject({ count: 1005, truncated: false });
    expect(reads).toEqual([1001, 1001]);
  });

  it('answers an export of nothing with an empty NDJSON body and a JSON envelope of none', async () => {
    expect((await exportOf([], 'ndjson')).body).toBe('');
    expect((await exportOf([], 'json')).json()).toEqual({ events: [], count: 0, truncated: false });
  });
});

describe('POST /audit/export, bounded per process', () => {
  it('answers 429 with Retry-After past the bound, writes no audit event for it, and frees slots however exports end', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const table = tableOf([row(1)]);
    let failing = false;
    let waiting = 0;
    const published: unknown[] = [];
    const app = await buildApp(
      stubAppOptions({
        // Four per process, so two for the one tenant of this test.
        exportConcurrency: 4,
        auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
        auditLog: { publish: async (events) => (published.push(...events), []) },
        events: {
          ...table,
          listKeys: async (tenant, filters, position, want) => {
            if (failing) throw new Error('ClickHouse down');
            waiting += 1;
            await gate;
            return table.listKeys(tenant, filters, position, want);
          },
        },
        clock: () => NEWEST + 1000,
      }),
    );
    const exportOnce = () =>
      app.inject({
        method: 'POST',
        url: '/api/v2/public/audit/export?format=ndjson',
        headers: { authorization: `Bearer ${formatApiKey(key)}` },
        payload: {},
      });
    const running = [exportOnce(), exportOnce()];
    // Both have taken their slot once their reads wait on the gate.
    while (waiting < 2) await new Promise((resolve) => setImmediate(resolve));
    const refused = await exportOnce();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({
      error: 'rate_limited',
      scope: 'concurrent_exports',
      retry_after_s: 1,
    });
    open();
    expect((await Promise.all(running)).map((r) => r.statusCode)).toEqual([200, 200]);
    expect(published).toHaveLength(2);
    failing = true;
    expect((await Promise.all([exportOnce(), exportOnce()])).map((r) => r.statusCode)).toEqual([503, 503]);
    failing = false;
    expect((await Promise.all([exportOnce(), exportOnce()])).map((r) => r.statusCode)).toEqual([200, 200]);
    await app.close();
  });
});
