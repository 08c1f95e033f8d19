import { describe, expect, it } from 'vitest';
import { makeEvent } from '../support/events.js';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { outage } from '../support/outage.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { waitFor } from '../support/wait-for.js';

const OUTAGE_MS = 20_000;
const fx = pipelineFixture('outage');
const { names } = fx;
const gw = gatewayFixture(names);

interface Answer {
  status: number;
  retryAfter: string | null;
  at: number;
}

/** Sends batches of 20 events one request after the other until stopped; remembers what was acknowledged. */
function steadyIngest(tenant: string) {
  const acked = new Set<string>();
  const sent = new Set<string>();
  const answers: Answer[] = [];
  let running = true;
  let n = 0;
  const loop = (async () => {
    while (running) {
      const events = Array.from({ length: 20 }, () => makeEvent(tenant, n++));
      for (const e of events) sent.add(e.event_id);
      try {
        const res = await fetch(`${fx.ingest.url}/internal/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${names.ingestToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(events),
        });
        await res.arrayBuffer();
        answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
        if (res.status === 202) for (const e of events) acked.add(e.event_id);
      } catch {
        answers.push({ status: 0, retryAfter: null, at: Date.now() });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    acked,
    sent,
    answers,
    since: (at: number) => answers.filter((a) => a.at >= at),
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** Every acknowledged event is stored once; nothing is stored that was never sent (but the key's own audit event). */
async function expectExactlyStored(tenant: string, acked: Set<string>, sent: Set<string>) {
  const ids = await waitFor('every acknowledged event stored', async () => {
    const result = await fx.ch.query({
      query: `SELECT event_id FROM audit_events WHERE tenant_id = '${tenant}' AND resource_type != 'api_key'`,
      format: 'JSONEachRow',
    });
    const rows = (await result.json<{ event_id: string }>()).map((r) => r.event_id);
    return [...acked].every((id) => rows.includes(id)) && rows;
  });
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.every((id) => sent.has(id))).toBe(true);
}

describe('outages', () => {
  it('Kafka stopped for 20 s during ingest: 503 with Retry-After, then every 202 event is readable, once', async () => {
    const tenant = `${names.tenant}-kafka`;
    const traffic = steadyIngest(tenant);
    await waitFor('traffic flowing', async () => traffic.acked.size >= 100);
    const stoppedAt = Date.now();
    await outage('kafka', OUTAGE_MS, () =>
      waitFor('a 503 while Kafka is down', async () =>
        traffic.since(stoppedAt).some((a) => a.status === 503),
      ),
    );
    const startedAt = Date.now();
    await waitFor('ingest accepting again', async () =>
      traffic.since(startedAt).some((a) => a.status === 202),
    );
    await traffic.stop();
    const statuses = new Set(traffic.answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([202, 503]);
    expect(traffic.answers.filter((a) => a.status === 503).every((a) => Number(a.retryAfter) > 0)).toBe(true);
    await expectExactlyStored(tenant, traffic.acked, traffic.sent);
  });

  it('ClickHouse stopped for 20 s: reads answer 503 with Retry-After, the projector catches up to the exact set', async () => {
    const tenant = `${names.tenant}-ch`;
    const key = await gw.mint(tenant, 'audit:read');
    const traffic = steadyIngest(tenant);
    await waitFor('traffic flowing', async () => traffic.acked.size >= 100);
    await outage('clickhouse', OUTAGE_MS, async () => {
      const read = await waitFor('a 503 from the list', async () => {
        const res = await gw.get('/audit/events?limit=10', key);
        return res.status === 503 && res;
      });
      expect(Number(read.headers.get('retry-after'))).toBeGreaterThan(0);
      const ready = await fetch(`${gw.url()}/readyz`);
      expect(ready.status).toBe(503);
    });
    await waitFor(
      'reads served again',
      async () => (await gw.get('/audit/events?limit=10', key)).status === 200,
    );
    await traffic.stop();
    // Ingest never needed ClickHouse.
    expect(new Set(traffic.answers.map((a) => a.status))).toEqual(new Set([202]));
    await expectExactlyStored(tenant, traffic.acked, traffic.sent);
    // The filter index and its summary too: an insert the stop cut short was repaired, not repeated.
    await expectFilterIndexExact(fx.ch, tenant);
  });

  it('Postgres stopped for 20 s: the gateway answers 503 with Retry-After, then recovers on its own', async () => {
    const tenant = `${names.tenant}-pg`;
    const key = await gw.mint(tenant, 'audit:read');
    expect((await gw.get('/audit/events?limit=1', key)).status).toBe(200);
    await outage('postgres', OUTAGE_MS, async () => {
      const res = await waitFor('a 503 from the gateway', async () => {
        const r = await gw.get('/audit/events?limit=1', key);
        return r.status === 503 && r;
      });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(JSON.parse(res.text)).toMatchObject({ error: 'service_unavailable' });
      expect((await fetch(`${gw.url()}/readyz`)).status).toBe(503);
    });
    await waitFor(
      'the gateway serving again',
      async () => (await gw.get('/audit/events?limit=1', key)).status === 200,
    );
    expect((await fetch(`${gw.url()}/readyz`)).status).toBe(200);
  });
});
