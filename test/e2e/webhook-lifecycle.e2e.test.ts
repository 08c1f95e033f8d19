import { afterAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

const DELAY_MS = 300;
const { names, ingest: ingestProc, ch } = pipelineFixture('whlife');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(DELAY_MS),
  WEBHOOK_RETRY_JITTER: '0.2',
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_AUTO_DISABLE_AFTER: '3',
});
const failing = new Set<string>();
const receiver = await webhookReceiver((path, id) =>
  path.endsWith('/dead') || failing.has(id) ? 500 : path.endsWith('/hang') ? 'hang' : 200,
);
afterAll(() => receiver.close());

async function endpoint(label: string, path: string) {
  const tenant = `${names.tenant}-${label}`;
  const key = await gw.mint(tenant, 'audit:read,webhooks:write');
  const res = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url(path),
    event_filter: ['phi.'],
  });
  expect(res.status, res.text).toBe(201);
  return { tenant, key, id: (JSON.parse(res.text) as { endpoint: { id: string } }).endpoint.id };
}

const phiEvents = (tenant: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ ...makeEvent(tenant, i), action: 'phi.read' }));

async function send(list: ReturnType<typeof phiEvents>) {
  expect((await ingest(ingestProc.url, names.ingestToken, list)).status).toBe(202);
}

const failures = async (id: string) =>
  (
    await dispatcher
      .db()
      .query<{ n: number }>('SELECT consecutive_failures AS n FROM webhook_endpoints WHERE id = $1', [id])
  ).rows[0]?.n;
const settle = () => new Promise((r) => setTimeout(r, DELAY_MS * 6 + 1500));

describe('webhook endpoint state', () => {
  it('resets consecutive_failures on a success; disables at the threshold and writes auto_disable', async () => {
    const { tenant, id } = await endpoint('reset', '/reset');
    const bad = phiEvents(tenant, 2);
    bad.forEach((e) => failing.add(e.event_id));
    await send(bad);
    await waitFor('two terminal failures', async () => (await failures(id)) === 2);
    await send(phiEvents(tenant, 1));
    await waitFor('the success resets the count', async () => (await failures(id)) === 0);
    const more = phiEvents(tenant, 3);
    more.forEach((e) => failing.add(e.event_id));
    await send(more);
    const row = await waitFor('auto-disabled at 3', async () => {
      const r = await dispatcher
        .db()
        .query<{ active: boolean; n: number }>(
          'SELECT active, consecutive_failures AS n FROM webhook_endpoints WHERE id = $1',
          [id],
        );
      return r.rows[0]?.active === false && r.rows[0];
    });
    expect(row.n).toBe(3);
    const audit = await waitFor('admin.webhook.auto_disable stored', async () =>
      (await storedEvents(ch, tenant)).find((e) => e.action === 'admin.webhook.auto_disable'),
    );
    expect(audit).toMatchObject({ resource_type: 'webhook_endpoint', resource_id: id, success: true });
  });

  it.each([
    ['disable', 'POST', (id: string) => `/audit/webhooks/${id}/disable`, 200],
    ['delete', 'DELETE', (id: string) => `/audit/webhooks/${id}`, 204],
  ] as const)('%s stops pending retries and new deliveries', async (label, method, path, status) => {
    const { tenant, key, id } = await endpoint(`stop-${label}`, `/${label}/dead`);
    await send(phiEvents(tenant, 1));
    await waitFor('first attempt', async () => receiver.at(`/${label}/dead`).length >= 1);
    const res = await gw.send(method, path(id), key);
    expect(res.status).toBe(status);
    const changedAt = Date.now();
    await send(phiEvents(tenant, 2));
    await settle();
    // An attempt already on the wire when the change committed may still land; nothing starts after it.
    const late = receiver.at(`/${label}/dead`).filter((r) => r.at > changedAt + 500);
    expect(late).toEqual([]);
    const rows = await dispatcher
      .db()
      .query('SELECT 1 FROM webhook_delivery_attempts WHERE endpoint_id = $1', [id]);
    if (label === 'delete') expect(rows.rowCount).toBe(0);
    else expect(rows.rowCount).toBeGreaterThanOrEqual(1);
  });

  it('never lets endpoints that do not answer delay a healthy endpoint of the same tenant and host by over a second', async () => {
    const tenant = `${names.tenant}-isolation`;
    const key = await gw.mint(tenant, 'audit:read,webhooks:write');
    // Two that hang: together they would hold more connections to the host than one endpoint may use.
    for (const p of ['/iso/a/hang', '/iso/b/hang', '/iso/healthy']) {
      const res = await gw.send('POST', '/audit/webhooks', key, {
        url: receiver.url(p),
        event_filter: ['phi.'],
      });
      expect(res.status).toBe(201);
    }
    const delays: number[] = [];
    for (let round = 0; round < 10; round++) {
      const batch = phiEvents(tenant, 5);
      await send(batch);
      const sentAt = Date.now();
      const ids = new Set<string>(batch.map((e) => e.event_id));
      const arrived = await waitFor('healthy deliveries', async () => {
        const got = receiver.at('/iso/healthy').filter((r) => ids.has(r.id));
        return got.length === ids.size && got;
      });
      delays.push(...arrived.map((r) => r.at - sentAt));
    }
    expect(receiver.at('/iso/a/hang').length).toBeGreaterThan(0);
    expect(receiver.at('/iso/b/hang').length).toBeGreaterThan(0);
    // The whole path (ingest, Kafka, dispatcher) is inside this bound too, so it is only ever looser.
    expect(Math.max(...delays)).toBeLessThan(1000);
  });
});
