import { describe, expect, it } from 'vitest';
import { afterAll } from 'vitest';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { dispatcherService, LOOPBACK_TARGETS } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver } from '../support/webhook-receiver.js';

// Slow enough that a replay is still running when the test looks, or stops its dispatcher.
const REPLAY_RATE = 4;
const { names, ingest: ingestProc } = pipelineFixture('whrep');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
// No settle delay: the test's events are on the audit topic before it asks for a replay.
const REPLAY_ENV = { WEBHOOK_REPLAY_RATE: String(REPLAY_RATE), WEBHOOK_REPLAY_SETTLE_MS: '0' };
const dispatcher = dispatcherFixture(names, gw, REPLAY_ENV);
const receiver = await webhookReceiver(() => 204);
afterAll(() => receiver.close());

interface Replay {
  id: string;
  status: string;
  deliveries_queued: number;
  records_read: number;
}

async function endpointWithEvents(label: string, count: number) {
  const tenant = `${names.tenant}-${label}`;
  const key = await gw.mint(tenant, 'audit:read,webhooks:write');
  const res = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url(`/${label}`),
    event_filter: ['phi.'],
  });
  expect(res.status, res.text).toBe(201);
  const { endpoint, secret } = JSON.parse(res.text) as { endpoint: { id: string }; secret: string };
  const since = new Date(Date.now() - 1000).toISOString();
  const events = Array.from({ length: count }, (_, i) => ({ ...makeEvent(tenant, i), action: 'phi.read' }));
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  // Delivered once, normally.
  await waitFor('the first deliveries', async () =>
    events.every((e) => receiver.at(`/${label}`).some((r) => r.id === e.event_id)) ? true : undefined,
  );
  return { key, id: endpoint.id, secret, since, events, path: `/${label}` };
}

const replayOf = async (key: string, id: string) => {
  const res = await gw.send('GET', `/audit/webhooks/${id}/replay`, key);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text) as Replay;
};

describe('self-serve webhook replay', () => {
  it('sends a window again with the same ids and bytes, marked as replays, one replay at a time', async () => {
    const { key, id, secret, since, events, path } = await endpointWithEvents('again', 12);
    expect((await gw.send('GET', `/audit/webhooks/${id}/replay`, key)).status).toBe(404);
    const until = new Date(Date.now() + 500).toISOString();
    await waitFor('until to pass', async () => (Date.now() > Date.parse(until) ? true : undefined));
    const started = await gw.send('POST', `/audit/webhooks/${id}/replay`, key, { since, until });
    expect(started.status, started.text).toBe(202);
    expect(JSON.parse(started.text)).toMatchObject({ status: 'queued', since: expect.any(String) });
    // One at a time: a second one while this one is queued or running.
    const again = await gw.send('POST', `/audit/webhooks/${id}/replay`, key, { since, until });
    expect(again.status, again.text).toBe(409);
    expect(JSON.parse(again.text).error).toBe('replay_in_progress');
    const done = await waitFor('the replay to succeed', async () => {
      const r = await replayOf(key, id);
      return r.status === 'succeeded' ? r : undefined;
    });
    expect(done.deliveries_queued).toBe(events.length);
    const got = await waitFor('every event twice', async () => {
      const all = receiver.at(path);
      return events.every((e) => all.filter((r) => r.id === e.event_id).length >= 2) ? all : undefined;
    });
    for (const event of events) {
      const [first, replayed] = got.filter((r) => r.id === event.event_id);
      expect(replayed!.body.equals(first!.body), event.event_id).toBe(true);
      expect(replayed!.headers['webhook-id']).toBe(event.event_id);
      expect(independentlyVerified(replayed!, secret)).toBe(true);
    }
    const attempts = await dispatcher
      .db()
      .query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE endpoint_id = $1 AND replay',
        [id],
      );
    expect(attempts.rows[0]!.n).toBe(events.length);
    const trail = await waitFor('the replay audit event', async () => {
      const res = await gw.send('GET', '/audit/events?action=admin.webhook.replay', key);
      return (JSON.parse(res.text) as { events: { resource_id: string }[] }).events.find(
        (e) => e.resource_id === id,
      );
    });
    expect(trail).toBeDefined();
  });

  it('goes on where it got when its dispatcher stops, on the next one', async () => {
    const { key, id, since, events, path } = await endpointWithEvents('resume', 16);
    const started = await gw.send('POST', `/audit/webhooks/${id}/replay`, key, { since });
    expect(started.status, started.text).toBe(202);
    await waitFor('part of the replay', async () => {
      const r = await replayOf(key, id);
      return r.status === 'running' && r.deliveries_queued >= REPLAY_RATE ? true : undefined;
    });
    await dispatcher.process().stop();
    const next = dispatcherService(names, gw.databaseUrl(), { ...LOOPBACK_TARGETS, ...REPLAY_ENV });
    await next.start();
    try {
      const done = await waitFor('the replay to succeed', async () => {
        const r = await replayOf(key, id);
        return r.status === 'succeeded' ? r : undefined;
      });
      expect(done.records_read).toBeGreaterThanOrEqual(events.length);
      await waitFor('every event replayed', async () =>
        events.every((e) => receiver.at(path).filter((r) => r.id === e.event_id).length >= 2)
          ? true
          : undefined,
      );
    } finally {
      await next.stop();
    }
  });
});
