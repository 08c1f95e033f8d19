import { afterAll, describe, expect, it } from 'vitest';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver } from '../support/webhook-receiver.js';

const fx = pipelineFixture('opsreplay');
const { names } = fx;
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(100),
  WEBHOOK_RETRY_JITTER: '0',
  WEBHOOK_TIMEOUT_MS: '2000',
});
let receiverDown = false;
const receiver = await webhookReceiver(() => (receiverDown ? 503 : 204));
afterAll(() => receiver.close());

const run = opsCli(names, () => gw.databaseUrl());
const ops = (...argv: string[]) => run([...argv, '--json']);

const tenant = `${names.tenant}-r`;
const batch = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ ...makeEvent(tenant, from + i), action: 'test.read' }));
const idsOf = (events: { event_id: string }[]) => new Set<string>(events.map((e) => e.event_id));

describe('ops replay webhooks', () => {
  it("re-drives exactly the window's matching events once more, signed, after a receiver outage", async () => {
    const key = await gw.mint(tenant, 'webhooks:write');
    const res = await gw.send('POST', '/audit/webhooks', key, {
      url: receiver.url('/siem'),
      event_filter: ['test.'],
    });
    expect(res.status, res.text).toBe(201);
    const { endpoint, secret } = JSON.parse(res.text) as { endpoint: { id: string }; secret: string };
    const okAt = (ids: Set<string>, after: number) =>
      receiver.at('/siem').filter((r) => ids.has(r.id) && r.at >= after);
    const send = async (events: ReturnType<typeof batch>) =>
      expect((await ingest(fx.ingest.url, names.ingestToken, events)).status).toBe(202);

    const before = batch(0, 2);
    await send(before);
    await waitFor('deliveries before the outage', async () => okAt(idsOf(before), 0).length === 2);

    const since = new Date();
    receiverDown = true;
    const during = batch(10, 3);
    await send(during);
    // Every attempt of the window's deliveries failed: six each, then dead-lettered.
    await waitFor('the outage exhausts the retries', async () => okAt(idsOf(during), 0).length === 18);
    const until = new Date();
    receiverDown = false;
    const after = batch(20, 2);
    await send(after);
    await waitFor('deliveries after the outage', async () => okAt(idsOf(after), 0).length === 2);
    // A loaded machine may time out an answered attempt and send it again: only once every delivery outside the
    // window has its success recorded can no ordinary retry of it arrive after the replay starts.
    const outside = [...idsOf(before), ...idsOf(after)];
    await waitFor('successes recorded outside the window', async () => {
      const { rows } = await dispatcher.db().query(
        `SELECT DISTINCT event_id FROM webhook_delivery_attempts
           WHERE endpoint_id = $1 AND succeeded AND NOT replay AND event_id = ANY($2::uuid[])`,
        [endpoint.id, outside],
      );
      return rows.length === outside.length;
    });

    const replayedAt = Date.now();
    const run = await ops(
      'replay',
      'webhooks',
      '--tenant',
      tenant,
      '--endpoint',
      endpoint.id,
      '--since',
      since.toISOString(),
      '--until',
      until.toISOString(),
    );
    expect(run.code, run.err).toBe(0);
    expect(run.json()).toMatchObject({ events_replayed: 3 });
    expect(new Set(run.json().event_ids as string[])).toEqual(idsOf(during));

    const again = await waitFor('the replayed deliveries', async () => {
      const got = okAt(idsOf(during), replayedAt);
      return got.length === 3 && got;
    });
    expect(new Set(again.map((r) => r.id))).toEqual(idsOf(during));
    for (const r of again) expect(independentlyVerified(r, secret)).toBe(true);
    const replays = await waitFor('replay attempts recorded', async () => {
      const { rows } = await dispatcher
        .db()
        .query('SELECT event_id FROM webhook_delivery_attempts WHERE endpoint_id = $1 AND replay', [
          endpoint.id,
        ]);
      return rows.length === 3 && rows;
    });
    expect(new Set(replays.map((r) => r.event_id as string))).toEqual(idsOf(during));
    // Nothing outside the window came again.
    expect(okAt(new Set(outside), replayedAt)).toEqual([]);
  });

  it('refuses an endpoint of another tenant, a bad window, and missing options, changing nothing', async () => {
    const bad = [
      ['--tenant', tenant, '--endpoint', 'wh_00000000', '--since', '2026-01-01T00:00:00Z'],
      ['--tenant', tenant, '--endpoint', 'wh_1', '--since', '2026-01-01T00:00:00Z'],
      ['--tenant', tenant, '--endpoint', 'wh_00000000', '--since', 'yesterday'],
      [
        '--tenant',
        tenant,
        '--endpoint',
        'wh_00000000',
        '--since',
        '2026-02-01T00:00:00Z',
        '--until',
        '2026-01-01T00:00:00Z',
      ],
      ['--endpoint', 'wh_00000000', '--since', '2026-01-01T00:00:00Z'],
    ];
    const codes = [];
    for (const argv of bad) codes.push((await ops('replay', 'webhooks', ...argv)).code);
    expect(codes).toEqual([1, 2, 2, 2, 2]);
  });
});
