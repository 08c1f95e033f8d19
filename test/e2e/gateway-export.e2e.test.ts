import { beforeAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const TOTAL = 25_000;
const { names, ingest: ingestProc, ch } = pipelineFixture('gwexport');
const gw = gatewayFixture(names);
const BASE = Date.now() - 5 * 86_400_000;

// Runs of 1 to 40 events share one millisecond, so the 10,000-row cuts fall inside runs.
function clustered(): TestEvent[] {
  const events: TestEvent[] = [];
  let ms = 0;
  while (events.length < TOTAL) {
    const run = 1 + ((events.length * 7919) % 40);
    for (let i = 0; i < run && events.length < TOTAL; i++) {
      events.push({
        ...makeEvent(names.tenant, events.length),
        timestamp: new Date(BASE + ms).toISOString(),
      });
    }
    ms += 1 + (events.length % 3) * 500;
  }
  return events;
}

const sent = clustered();
let exporter: string;
let reader: string;

const NO_BODY = Symbol('no body');

async function exportCall(body: unknown, format = 'json', key = exporter) {
  const res = await fetch(`${gw.url()}/api/v2/public/audit/export?format=${format}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === NO_BODY ? {} : { 'content-type': 'application/json' }),
    },
    body: body === NO_BODY ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

beforeAll(async () => {
  exporter = await gw.mint(names.tenant, 'audit:export');
  reader = await gw.mint(names.tenant, 'audit:read');
  for (let i = 0; i < sent.length; i += 1000) {
    expect((await ingest(ingestProc.url, names.ingestToken, sent.slice(i, i + 1000))).status).toBe(202);
  }
  // The sent events and the two admin.key.create events of the keys above.
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) === TOTAL + 2);
});

describe('POST /api/v2/public/audit/export', () => {
  it('reassembles exactly the full set by continuing with until = the last timestamp', async () => {
    const all = new Set((await storedEvents(ch, names.tenant)).map((e) => e.event_id));
    const seen: string[] = [];
    const calls: { count: number; truncated: boolean }[] = [];
    let until: string | undefined;
    for (let call = 0; call < 10; call++) {
      const res = await exportCall(until ? { until } : {});
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text) as {
        events: { event_id: string; timestamp: string }[];
        count: number;
        truncated: boolean;
      };
      expect(body.count).toBe(body.events.length);
      expect(body.events.length).toBeLessThanOrEqual(10_000);
      expect(res.headers.get('x-service-truncated')).toBe(String(body.truncated));
      seen.push(...body.events.map((e) => e.event_id));
      calls.push({ count: body.count, truncated: body.truncated });
      if (!body.truncated) break;
      until = body.events.at(-1)!.timestamp;
    }
    console.info(`export calls: ${JSON.stringify(calls)}`);
    // At least one cut fell inside a shared millisecond and left that whole run for the next call.
    expect(calls.some((c) => c.truncated && c.count < 10_000)).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    // Only this test's own audit.export events (written after each plan) may be missing from the reassembly.
    expect(seen.filter((id) => !all.has(id))).toEqual([]);
    expect([...all].filter((id) => !seen.includes(id))).toEqual([]);
  });

  it('streams NDJSON, one event per line, in the list order', async () => {
    const res = await exportCall({ action: 'phi.read', until: sent[5000]!.timestamp }, 'ndjson');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = res.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; timestamp: string });
    expect(lines.length).toBeGreaterThan(100);
    expect(
      lines.every(
        (e) => e.action === 'phi.read' && e.timestamp < sent[5000]!.timestamp.replace('Z', '+00:00'),
      ),
    ).toBe(true);
    expect(res.headers.get('x-service-truncated')).toBe('false');
  });

  it('writes audit.export for every 200, and with success false for a key without the scope', async () => {
    expect((await exportCall({ action: 'phi.decrypt' })).status).toBe(200);
    const denied = await exportCall({}, 'json', reader);
    expect(denied.status).toBe(403);
    await waitFor('export audit events', async () => {
      const exports = (await storedEvents(ch, names.tenant)).filter((e) => e.action === 'audit.export');
      return (
        exports.some((e) => !e.success) &&
        exports.some(
          (e) =>
            e.success && (e.details as { filters: { action?: string } }).filters.action === 'phi.decrypt',
        )
      );
    });
  });

  it.each([
    [{ limit: 10 }, 'json', 'limit'],
    [{ cursor: 'abc' }, 'json', 'cursor'],
    [{ phi_involved: 'yes' }, 'json', 'phi_involved'],
    [{ since: '2026-11-02T00:00:00Z', until: '2026-11-01T00:00:00Z' }, 'json', 'since'],
    [[], 'json', '(body)'],
    [null, 'json', '(body)'],
    [{}, 'csv', 'format'],
  ])('answers 422 for body %j with format %s, naming %s', async (body, format, field) => {
    const res = await exportCall(body, format);
    expect(res.status).toBe(422);
    expect((JSON.parse(res.text) as { details: { field: string }[] }).details.map((d) => d.field)).toContain(
      field,
    );
  });

  it('exports everything for a request without a body', async () => {
    const res = await exportCall(NO_BODY, 'ndjson');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-truncated')).toBe('true');
  });

  it('answers 403 to a key without the scope whatever body it sends', async () => {
    const res = await fetch(`${gw.url()}/api/v2/public/audit/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}`, 'content-type': 'text/plain' },
      body: 'not json at all',
    });
    expect(res.status).toBe(403);
  });

  it('returns exactly the first 10,000 of a millisecond holding more, marked truncated', async () => {
    const tenant = `${names.tenant}-one-ms`;
    const key = await gw.mint(tenant, 'audit:export');
    const at = new Date(BASE - 86_400_000).toISOString();
    const burst = Array.from({ length: 10_050 }, (_, i) => ({ ...makeEvent(tenant, i), timestamp: at }));
    for (let i = 0; i < burst.length; i += 1000) {
      expect((await ingest(ingestProc.url, names.ingestToken, burst.slice(i, i + 1000))).status).toBe(202);
    }
    await waitFor('burst stored', async () => (await countRows(ch, tenant)) === 10_051);
    const res = await exportCall({ until: new Date(BASE).toISOString() }, 'json', key);
    const body = JSON.parse(res.text) as { events: unknown[]; count: number; truncated: boolean };
    expect(body.count).toBe(10_000);
    expect(body.events).toHaveLength(10_000);
    expect(body.truncated).toBe(true);
    expect(res.headers.get('x-service-truncated')).toBe('true');
  });
});
