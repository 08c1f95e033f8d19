import { afterAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

const EVENTS = 3000;
const BATCH = 25;
const MIN_KILLS = 4;
const { names, ingest: ingestProc } = pipelineFixture('whcrash');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(200),
  DISPATCHER_SESSION_TIMEOUT_MS: '6000',
});
// One in ten first attempts fails, so retry tiers are in flight when the kills land too.
const receiver = await webhookReceiver((_path, id, seen) => (seen === 0 && id.endsWith('0') ? 500 : 200));
afterAll(() => receiver.close());

describe('dispatcher killed with SIGKILL while events flow', () => {
  it('still delivers every matching event to every matching endpoint, duplicates with the same id and body', async () => {
    const tenant = `${names.tenant}-crash`;
    const key = await gw.mint(tenant, 'audit:read,webhooks:write');
    for (const [path, event_filter] of [
      ['/all', []],
      ['/phi', ['phi.']],
    ] as const) {
      const res = await gw.send('POST', '/audit/webhooks', key, { url: receiver.url(path), event_filter });
      expect(res.status).toBe(201);
    }
    const sent = Array.from({ length: EVENTS }, (_, i) => makeEvent(tenant, i));
    let sending = true;
    const producer = (async () => {
      for (let i = 0; i < sent.length; i += BATCH) {
        expect((await ingest(ingestProc.url, names.ingestToken, sent.slice(i, i + BATCH))).status).toBe(202);
        // Spread over about fifteen seconds, so that the kills land while events flow.
        await new Promise((r) => setTimeout(r, 100));
      }
      sending = false;
    })();
    let kills = 0;
    while (sending || kills < MIN_KILLS) {
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 1200));
      await dispatcher.process().stop('SIGKILL');
      kills++;
      await dispatcher.process().start();
    }
    await producer;

    const want = (path: string) =>
      new Set<string>(
        sent.filter((e) => path === '/all' || e.action.startsWith('phi.')).map((e) => e.event_id),
      );
    for (const path of ['/all', '/phi']) {
      const expected = want(path);
      await waitFor(
        `every event at ${path}`,
        async () =>
          new Set(
            receiver
              .at(path)
              .filter((r) => expected.has(r.id) && r.body.length > 0)
              .map((r) => r.id),
          ).size === expected.size,
        { timeoutMs: 180_000 },
      );
      const bodies = new Map<string, string>();
      for (const r of receiver.at(path).filter((x) => expected.has(x.id))) {
        const body = r.body.toString('base64');
        expect(bodies.get(r.id) ?? body).toBe(body);
        bodies.set(r.id, body);
      }
    }
    expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);
  });
});
