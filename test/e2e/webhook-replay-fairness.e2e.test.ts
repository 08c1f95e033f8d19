import { Partitioners } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENTS_PARTITIONS } from '@audit/shared/contract';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// A's replays take about 400 / 20 = 20 s each; a slice is 1 s (docs/webhooks.md "Fair share").
const REPLAY_RATE = 20;
const SLICE_MS = 1000;
const PER_TENANT = 3;
const LONG = 400;
const { names, ingest: ingestProc } = pipelineFixture('whfair');
const gw = gatewayFixture(names, {
  env: { ...LOOPBACK_TARGETS, WEBHOOK_REPLAYS_PER_TENANT: String(PER_TENANT) },
});
dispatcherFixture(names, gw, {
  WEBHOOK_REPLAY_RATE: String(REPLAY_RATE),
  WEBHOOK_REPLAY_SETTLE_MS: '0',
  WEBHOOK_REPLAY_SLICE_MS: String(SLICE_MS),
});
const receiver = await webhookReceiver(() => 204);
afterAll(() => receiver.close());

interface Replay {
  status: string;
  records_read: number;
  deliveries_queued: number;
}

const phiReads = (tenant: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ ...makeEvent(tenant, i), action: 'phi.read' }));

async function endpointOf(tenant: string, key: string, label: string): Promise<string> {
  const res = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url(`/${label}`),
    event_filter: ['phi.'],
  });
  expect(res.status, res.text).toBe(201);
  return (JSON.parse(res.text) as { endpoint: { id: string } }).endpoint.id;
}

async function ingested(events: { event_id: string }[], paths: string[]) {
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  await waitFor('the first deliveries', async () =>
    paths.every((p) => receiver.at(p).length >= events.length) ? true : undefined,
  );
}

const replayOf = async (key: string, id: string) => {
  const res = await gw.send('GET', `/audit/webhooks/${id}/replay`, key);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text) as Replay;
};

/** The tenant whose events share the audit topic's partition with `tenant`'s: the producers' partitioner. */
function neighbourOf(tenant: string): string {
  const partitionMetadata = Array.from({ length: AUDIT_EVENTS_PARTITIONS }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
    partitionErrorCode: 0,
  }));
  const partition = (key: string) =>
    Partitioners.DefaultPartitioner()({ topic: 'audit', partitionMetadata, message: { key, value: null } });
  for (let i = 0; ; i++) if (partition(`${tenant}-n${i}`) === partition(tenant)) return `${tenant}-n${i}`;
}

describe('webhook replays shared fairly between tenants', () => {
  it("runs a tenant's small replay while another's long ones wait their turn, and caps each tenant", async () => {
    const flooder = `${names.tenant}-a`;
    const aKey = await gw.mint(flooder, 'audit:read,webhooks:write');
    const aIds = [];
    for (let i = 0; i <= PER_TENANT; i++) aIds.push(await endpointOf(flooder, aKey, `a${i}`));
    const since = new Date(Date.now() - 1000).toISOString();
    await ingested(
      phiReads(flooder, LONG),
      aIds.map((_, i) => `/a${i}`),
    );
    for (const id of aIds.slice(0, PER_TENANT)) {
      const res = await gw.send('POST', `/audit/webhooks/${id}/replay`, aKey, { since });
      expect(res.status, res.text).toBe(202);
    }
    const refused = await gw.send('POST', `/audit/webhooks/${aIds[PER_TENANT]}/replay`, aKey, { since });
    expect(refused.status, refused.text).toBe(429);
    expect(JSON.parse(refused.text)).toMatchObject({ scope: 'concurrent_replays', retry_after_s: 60 });
    expect(refused.headers.get('retry-after')).toBe('60');

    const small = `${names.tenant}-b`;
    const bKey = await gw.mint(small, 'audit:read,webhooks:write');
    const bId = await endpointOf(small, bKey, 'b');
    await ingested(phiReads(small, 3), ['/b']);
    const asked = Date.now();
    const started = await gw.send('POST', `/audit/webhooks/${bId}/replay`, bKey, { since });
    expect(started.status, started.text).toBe(202);
    const done = await waitFor('the small replay to succeed', async () => {
      const r = await replayOf(bKey, bId);
      return r.status === 'succeeded' ? r : undefined;
    });
    const waitedMs = Date.now() - asked;
    const flood = await Promise.all(aIds.slice(0, PER_TENANT).map((id) => replayOf(aKey, id)));
    console.log(
      `webhook replay fairness: B's replay of 3 ended ${waitedMs} ms after it was asked for; bound: one slice ` +
        `(${SLICE_MS} ms), A's next part and B's read from Kafka, plus its own run; A's replays had handed on ` +
        `${flood.map((r) => r.deliveries_queued).join(', ')} of ${LONG} each`,
    );
    expect(done.deliveries_queued).toBe(3);
    // Served in turn, not after the flood: every one of A's replays is still waiting or under way.
    expect(flood.map((r) => r.status).filter((s) => s !== 'queued' && s !== 'running')).toEqual([]);
    for (const id of aIds) expect((await gw.send('DELETE', `/audit/webhooks/${id}`, aKey)).status).toBe(204);
  });

  it("reads from the endpoint's creation and counts only the tenant's own records", async () => {
    const tenant = `${names.tenant}-c`;
    const neighbour = neighbourOf(tenant);
    const since = new Date(Date.now() - 1000).toISOString();
    // Before the endpoint existed: never read, never counted.
    expect((await ingest(ingestProc.url, names.ingestToken, phiReads(tenant, 5))).status).toBe(202);
    await new Promise((r) => setTimeout(r, 50));
    const key = await gw.mint(tenant, 'audit:read,webhooks:write');
    const id = await endpointOf(tenant, key, 'c');
    // The neighbour's records lie in the same partition, among the tenant's.
    expect((await ingest(ingestProc.url, names.ingestToken, phiReads(neighbour, 7))).status).toBe(202);
    await ingested(phiReads(tenant, 3), ['/c']);
    expect((await gw.send('POST', `/audit/webhooks/${id}/replay`, key, { since })).status).toBe(202);
    const done = await waitFor('the replay to succeed', async () => {
      const r = await replayOf(key, id);
      return r.status === 'succeeded' ? r : undefined;
    });
    // Read: the tenant's own records from the endpoint's creation on, the three events and two of the gateway's
    // (`admin.webhook.create`, and `admin.webhook.replay` just after the window, where a record may still be
    // late); never the five before it, never the neighbour's seven.
    expect({ read: done.records_read, queued: done.deliveries_queued }).toEqual({ read: 5, queued: 3 });
  });
});
