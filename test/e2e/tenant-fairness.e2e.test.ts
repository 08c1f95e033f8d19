import { rmSync } from 'node:fs';
import { Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENTS_PARTITIONS } from '@audit/shared/contract';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { exportDir, exporterService, LOOPBACK_TARGETS } from '../support/stack.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// A's replays take about 400 / 20 = 20 s each; a slice is 1 s (docs/webhooks.md "Fair share").
const REPLAY_RATE = 20;
// A's export jobs read 60,000 rows each in chunks of 50, 1,200 reads a job (docs/exports.md "Fair share").
const BULK = 60_000;
const CHUNK_ROWS = 50;
const SLICE_MS = 1000;
const PER_TENANT = 3;
const LONG = 400;
const { names, ingest: ingestProc, ch } = pipelineFixture('fair');
const gw = gatewayFixture(names, {
  env: { ...LOOPBACK_TARGETS, WEBHOOK_REPLAYS_PER_TENANT: String(PER_TENANT) },
});
dispatcherFixture(names, gw, {
  WEBHOOK_REPLAY_RATE: String(REPLAY_RATE),
  WEBHOOK_REPLAY_SETTLE_MS: '0',
  WEBHOOK_REPLAY_SLICE_MS: String(SLICE_MS),
});
const receiver = await webhookReceiver(() => 204);
let exporter: ReturnType<typeof exporterService> | undefined;
beforeAll(async () => {
  exporter = exporterService(names, gw.databaseUrl(), { EXPORT_JOB_CHUNK_ROWS: String(CHUNK_ROWS) });
  await exporter.start();
});
afterAll(async () => {
  await exporter?.stop();
  await receiver.close();
  rmSync(exportDir(names), { recursive: true, force: true });
});

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

interface Job {
  id: string;
  status: string;
  progress: { rows_written: number };
}

const jobOf = async (key: string, id: string) => {
  const res = await gw.send('GET', `/audit/exports/${id}`, key);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text) as Job;
};

async function exportJob(key: string, since: string): Promise<string> {
  const res = await gw.send('POST', '/audit/exports', key, { since, format: 'ndjson' });
  expect(res.status, res.text).toBe(202);
  return (JSON.parse(res.text) as Job).id;
}

/** The tenant's events that no endpoint here takes (the endpoints take `phi.`), for its export jobs to read. */
async function bulkOf(tenant: string) {
  for (let i = 0; i < BULK; i += 1000) {
    const events = Array.from({ length: 1000 }, (_, j) => ({
      ...makeEvent(tenant, i + j),
      action: 'admin.login',
    }));
    expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  }
  await waitFor('the bulk stored', async () => ((await countRows(ch, tenant)) >= BULK ? true : undefined), {
    timeoutMs: 300_000,
  });
}

const inFlight = (status: string) => status === 'queued' || status === 'running';

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

describe('tenants shared fairly', () => {
  it("runs a tenant's small replay and small export job while another's long ones take their turns", async () => {
    const flooder = `${names.tenant}-a`;
    const aKey = await gw.mint(flooder, 'audit:read,audit:export,webhooks:write');
    const aIds = [];
    for (let i = 0; i <= PER_TENANT; i++) aIds.push(await endpointOf(flooder, aKey, `a${i}`));
    const since = new Date(Date.now() - 1000).toISOString();
    await bulkOf(flooder);
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
    // Three year-long jobs (a tenant's most in flight): two run, the tenant's cap, and one waits.
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString();
    const aJobs: string[] = [];
    for (let i = 0; i < 3; i++) aJobs.push(await exportJob(aKey, yearAgo));
    await waitFor("A's jobs writing", async () => {
      const jobs = await Promise.all(aJobs.map((id) => jobOf(aKey, id)));
      return jobs.some((j) => j.progress.rows_written > 0) ? true : undefined;
    });

    // B shares A's partition of the audit topic and of the job requests' topic.
    const small = neighbourOf(flooder);
    const bKey = await gw.mint(small, 'audit:read,audit:export,webhooks:write');
    const bId = await endpointOf(small, bKey, 'b');
    await ingested(phiReads(small, 3), ['/b']);
    const asked = Date.now();
    const started = await gw.send('POST', `/audit/webhooks/${bId}/replay`, bKey, { since });
    expect(started.status, started.text).toBe(202);
    const bJob = await exportJob(bKey, since);
    const ended: Record<string, number> = {};
    await waitFor('the small replay and the small job to succeed', async () => {
      const replay = await replayOf(bKey, bId);
      const job = await jobOf(bKey, bJob);
      if (replay.status === 'succeeded') ended.replay ??= Date.now() - asked;
      if (job.status === 'succeeded') ended.job ??= Date.now() - asked;
      return ended.replay !== undefined && ended.job !== undefined ? true : undefined;
    });
    const flood = await Promise.all(aIds.slice(0, PER_TENANT).map((id) => replayOf(aKey, id)));
    const floodJobs = await Promise.all(aJobs.map((id) => jobOf(aKey, id)));
    console.log(
      `tenant fairness: B's replay of 3 ended ${ended.replay} ms after it was asked for (bound: one slice, ` +
        `${SLICE_MS} ms, plus its own run); A's replays had handed on ` +
        `${flood.map((r) => r.deliveries_queued).join(', ')} of ${LONG} each. B's export job ended ` +
        `${ended.job} ms after (bound: its projection wait, then about one chunk read of each tenant reading ` +
        `at the exporter per turn); A's jobs had written ${floodJobs.map((j) => j.progress.rows_written).join(', ')} ` +
        `rows of ${BULK} and more each`,
    );
    expect((await replayOf(bKey, bId)).deliveries_queued).toBe(3);
    // Served in turn, not after the flood: every one of A's replays and jobs is still waiting or under way.
    expect(flood.map((r) => r.status).filter((s) => !inFlight(s))).toEqual([]);
    expect(floodJobs.map((j) => j.status).filter((s) => !inFlight(s))).toEqual([]);
    // Two of A's jobs run, its cap; the third waits.
    expect(floodJobs.map((j) => j.status).sort()).toEqual(['queued', 'running', 'running']);
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
