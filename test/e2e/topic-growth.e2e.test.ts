import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { generationTopic } from '@audit/shared/audit-topic';
import { sleep } from '@audit/shared/platform';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { storedEvents } from '../support/stored-events.js';
import { storedLeaves } from '../support/tree-leaves.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

const TENANTS = 6;
const BATCH = 20;
// Sending goes on this long before the growth and after it: the switch happens while events flow.
const BEFORE_MS = 3000;
const AFTER_MS = 4000;
// The projector is down this long before the growth: it comes back to records waiting in both generations, and
// only the gate between them keeps each tenant's leaves in order. The dispatcher stays up: it follows the growth.
const PROJECTOR_DOWN_MS = 2000;

const {
  names,
  ingest: ingestProc,
  projector,
  ch,
  kafka,
  topics,
  databaseUrl,
} = pipelineFixture('grow', { PROJECTOR_SESSION_TIMEOUT_MS: '6000' }, { trees: true });
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS, databaseUrl });
// One delivery at a time per endpoint: an endpoint then receives its events in the order the dispatcher read them.
dispatcherFixture(names, gw, {
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1',
  WEBHOOK_RETRY_DELAYS: compressedSchedule(200),
  // A replay of the window begins at once: its events are on the topic before the test asks.
  WEBHOOK_REPLAY_SETTLE_MS: '0',
  WEBHOOK_REPLAY_RATE: '10000',
});
const ops = opsCli(names, () => databaseUrl);
const receiver = await webhookReceiver(() => 204);
afterAll(() => receiver.close());

/** Sends a tenant's events a batch at a time, each after the one before was acknowledged: their order. */
async function sendUntil(tenant: string, stop: () => boolean, acknowledged: string[]) {
  for (let i = 0; !stop(); i += BATCH) {
    const batch = Array.from({ length: BATCH }, (_, j) => makeEvent(tenant, i + j));
    // A 503 during the switch is answered by sending the same events again, as a client does.
    await waitFor(`${tenant}: batch ${i} accepted`, async () => {
      const res = await ingest(ingestProc.url, names.ingestToken, batch);
      if (res.status !== 202) expect(res.status).toBe(503);
      return res.status === 202;
    });
    acknowledged.push(...batch.map((e) => e.event_id));
    await sleep(50);
  }
}

interface Tenant {
  tenant: string;
  key: string;
  endpoint: string;
  path: string;
  acknowledged: string[];
}
// The window the first test sent in, across the growth; the tests after it replay it.
const sent = { tenants: [] as Tenant[], since: 0, until: 0 };

describe('growing the audit topic while events flow (ops topics grow)', () => {
  it('keeps every event once, each tenant in its order in its tree and at its endpoint, and seals the old topic', async () => {
    const tenants = await Promise.all(
      Array.from({ length: TENANTS }, async (_, i): Promise<Tenant> => {
        const tenant = `${names.tenant}-${i}`;
        const key = await gw.mint(tenant, 'audit:read,webhooks:write');
        const res = await gw.send('POST', '/audit/webhooks', key, {
          url: receiver.url(`/t${i}`),
          event_filter: [],
        });
        expect(res.status, res.text).toBe(201);
        const { endpoint } = JSON.parse(res.text) as { endpoint: { id: string } };
        return { tenant, key, endpoint: endpoint.id, path: `/t${i}`, acknowledged: [] };
      }),
    );
    sent.tenants = tenants;
    sent.since = Date.now();
    let stopped = false;
    const sending = Promise.all(tenants.map((t) => sendUntil(t.tenant, () => stopped, t.acknowledged)));
    await sleep(BEFORE_MS);
    await projector.stop();
    await sleep(PROJECTOR_DOWN_MS);
    const grown = await ops(['topics', 'grow', '--partitions', '12', '--json']);
    expect(grown.code, grown.err).toBe(0);
    const before = tenants.reduce((n, t) => n + t.acknowledged.length, 0);
    await sleep(AFTER_MS);
    await projector.start();
    stopped = true;
    await sending;
    sent.until = Date.now() + 1;

    const g2 = generationTopic(topics.auditEvents.name, 2);
    expect(grown.json()).toMatchObject({ generation: 2, topic: g2, partitions: 12, resumed: false });
    const ends = grown.json<{ previous: { ends: string[] } }>().previous.ends.map(Number);
    expect(ends).toHaveLength(6);
    // Events went on into the new generation, and the old one takes no write any more: the seal is the broker's.
    const admin = kafka.admin();
    await admin.connect();
    try {
      const g2Records = (await admin.fetchTopicOffsets(g2)).reduce((n, p) => n + Number(p.high), 0);
      expect(g2Records).toBeGreaterThan(0);
      expect(ends.reduce((a, b) => a + b, 0) + g2Records).toBeGreaterThanOrEqual(before);
      const producer = kafka.producer();
      await producer.connect();
      await expect(
        producer.send({ topic: topics.auditEvents.name, acks: -1, messages: [{ key: 'x', value: 'x' }] }),
      ).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
      await producer.disconnect();
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: 2, name: topics.auditEvents.name, configNames: ['retention.ms', 'max.message.bytes'] },
        ],
      });
      const config = Object.fromEntries(
        resources[0]!.configEntries.map((e) => [e.configName, e.configValue]),
      );
      expect(config).toEqual({ 'retention.ms': '-1', 'max.message.bytes': '0' });
    } finally {
      await admin.disconnect();
    }
    const listed = await ops(['topics', 'list', '--json']);
    expect(listed.json()).toEqual({
      generations: [
        {
          generation: 1,
          topic: topics.auditEvents.name,
          partitions: 6,
          writes: 'sealed',
          ends: ends.map(String),
        },
        { generation: 2, topic: g2, partitions: 12, writes: 'open', ends: null },
      ],
    });

    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    try {
      for (const { tenant, path, acknowledged } of tenants) {
        const wanted = new Set(acknowledged);
        // Stored once each.
        const stored = await waitFor(`${tenant}: every event stored`, async () => {
          const rows = (await storedEvents(ch, tenant)).filter((e) => wanted.has(e.event_id));
          return rows.length >= wanted.size && rows;
        });
        expect(stored.map((e) => e.event_id).sort()).toEqual([...acknowledged].sort());
        // In the tree once each, in the order they were acknowledged, across the two generations.
        const leaves = await waitFor(`${tenant}: every event a leaf`, async () => {
          const ids = (await storedLeaves(db, tenant)).map((l) => l.event_id).filter((id) => wanted.has(id));
          return ids.length >= wanted.size && ids;
        });
        expect(leaves).toEqual(acknowledged);
        const verified = await ops(['integrity', 'verify', '--tenant', tenant, '--json']);
        expect(verified.json(), verified.out).toMatchObject({ ok: true, findings: [] });
        // Delivered to the endpoint, first deliveries in the same order.
        const delivered = await waitFor(`${tenant}: every event delivered`, async () => {
          const firsts = [...new Set(receiver.at(path).map((r) => r.id))].filter((id) => wanted.has(id));
          return firsts.length >= wanted.size && firsts;
        });
        expect(delivered).toEqual(acknowledged);
      }
    } finally {
      await db.end();
    }
  });

  it("replays a window that spans the growth: a tenant's webhooks, in order, and the whole projection", async () => {
    const [{ tenant, key, endpoint, path, acknowledged }] = sent.tenants as [Tenant];
    const window = { since: new Date(sent.since).toISOString(), until: new Date(sent.until).toISOString() };
    const started = await gw.send('POST', `/audit/webhooks/${endpoint}/replay`, key, window);
    expect(started.status, started.text).toBe(202);
    const done = await waitFor(`${tenant}: the replay to succeed`, async () => {
      const res = await gw.send('GET', `/audit/webhooks/${endpoint}/replay`, key);
      const replay = JSON.parse(res.text) as { status: string; deliveries_queued: number };
      expect(replay.status).not.toBe('failed');
      return replay.status === 'succeeded' && replay;
    });
    const wanted = new Set(acknowledged);
    expect(done.deliveries_queued).toBeGreaterThanOrEqual(wanted.size);
    const again = await waitFor(`${tenant}: every event delivered again`, async () => {
      const seen = new Map<string, number>();
      const seconds = receiver.at(path).filter((r) => {
        seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
        return wanted.has(r.id) && seen.get(r.id) === 2;
      });
      return seconds.length >= wanted.size && seconds.map((r) => r.id);
    });
    expect(again).toEqual(acknowledged);

    const total = sent.tenants.reduce((n, t) => n + t.acknowledged.length, 0);
    const replayed = await ops(['replay', 'projection', '--drop-old-after', '5', '--json']);
    expect(replayed.code, replayed.err).toBe(0);
    expect(replayed.json<{ events: number }>().events).toBeGreaterThanOrEqual(total);
  });

  it('refuses a growth to as many partitions or fewer, with a clear reason, and changes nothing', async () => {
    for (const partitions of ['12', '3']) {
      const res = await ops(['topics', 'grow', '--partitions', partitions]);
      expect(res.code).toBe(2);
      expect(res.err).toMatch(/has 12 partitions; growing it takes more than that/);
    }
    const bad = await ops(['topics', 'grow', '--partitions', 'many']);
    expect([bad.code, bad.err]).toEqual([2, expect.stringMatching(/--partitions N, a whole number/)]);
    expect(
      (await ops(['topics', 'list', '--json'])).json<{ generations: unknown[] }>().generations,
    ).toHaveLength(2);
  });
});
