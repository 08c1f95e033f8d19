import { afterAll, describe, expect, it } from 'vitest';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

const { names, ingest: ingestProc, ch } = pipelineFixture('whpat');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
// No settle delay: the test's events are on the audit topic before it asks for a replay.
const dispatcher = dispatcherFixture(names, gw, { WEBHOOK_REPLAY_SETTLE_MS: '0' });
const receiver = await webhookReceiver(() => 204);
afterAll(() => receiver.close());
const ops = opsCli(names, () => gw.databaseUrl());

// The VIP patient a privacy office watches, and another patient.
const P = 'p-vip-1042';
const Q = 'p-2210';

interface Endpoint {
  id: string;
  event_filter: string[];
  patient_filter: string[];
}

const fieldsOf = (text: string) =>
  (JSON.parse(text) as { details: { field: string }[] }).details.map((d) => d.field);

async function tenantKey(label: string) {
  const tenant = `${names.tenant}-${label}`;
  return { tenant, key: await gw.mint(tenant, 'audit:read,webhooks:write') };
}

async function endpoint(key: string, path: string, filters: Partial<Omit<Endpoint, 'id'>> = {}) {
  const res = await gw.send('POST', '/audit/webhooks', key, { url: receiver.url(path), ...filters });
  expect(res.status, res.text).toBe(201);
  return (JSON.parse(res.text) as { endpoint: Endpoint }).endpoint;
}

const listed = async (key: string) =>
  (JSON.parse((await gw.send('GET', '/audit/webhooks', key)).text) as { endpoints: Endpoint[] }).endpoints;

/** An event with that action; `patient` absent leaves `patient_id` out (ingest's default: ""). */
const event = (tenant: string, i: number, action: string, patient?: string) => ({
  ...makeEvent(tenant, i),
  action,
  ...(patient === undefined ? {} : { patient_id: patient }),
});

/** Events of P, of Q, of no patient, and of ids that only look like P's. */
const mix = (tenant: string) => ({
  pPhi: [event(tenant, 0, 'phi.read', P), event(tenant, 1, 'phi.export', P)],
  pOther: [event(tenant, 2, 'record.update', P)],
  q: [event(tenant, 3, 'phi.read', Q), event(tenant, 4, 'record.update', Q)],
  none: [event(tenant, 5, 'phi.query', ''), event(tenant, 6, 'phi.read')],
  lookalikes: [event(tenant, 7, 'phi.read', P.toUpperCase()), event(tenant, 8, 'phi.read', `${P}-2`)],
});
const all = (m: ReturnType<typeof mix>) => Object.values(m).flat();

async function send(list: TestEvent[]) {
  expect((await ingest(ingestProc.url, names.ingestToken, list)).status).toBe(202);
}

const idsOf = (list: { event_id: string }[]) => new Set(list.map((e) => e.event_id));
/** The ids received at `path` among `ours`, one entry per delivery. */
const receivedAt = (path: string, ours: TestEvent[]) => {
  const wanted = idsOf(ours);
  return receiver
    .at(path)
    .map((r) => r.id)
    .filter((id) => wanted.has(id));
};
/** Waits until `path` has had every event of `expected`, and answers what of `ours` it received. */
const once = async (path: string, expected: TestEvent[], ours: TestEvent[]) => {
  await waitFor(`${expected.length} deliveries at ${path}`, async () =>
    expected.every((e) => receivedAt(path, ours).includes(e.event_id)),
  );
  return receivedAt(path, ours);
};

const changeEvents = async (tenant: string, id: string, action: string) =>
  (await storedEvents(ch, tenant)).filter((e) => e.resource_id === id && e.action === action);

describe('webhook patient filter', () => {
  it('delivers exactly the events naming a listed patient, with and without an action filter', async () => {
    const { tenant, key } = await tenantKey('match');
    const vip = await endpoint(key, '/vip', { patient_filter: [P] });
    const vipPhi = await endpoint(key, '/vip-phi', { event_filter: ['phi.'], patient_filter: [P] });
    const two = await endpoint(key, '/two', { patient_filter: [P, Q] });
    const open = await endpoint(key, '/open');
    expect([vip, vipPhi, two, open].map((e) => [e.event_filter, e.patient_filter])).toEqual([
      [[], [P]],
      [['phi.'], [P]],
      [[], [P, Q]],
      [[], []],
    ]);
    expect((await listed(key)).map((e) => e.patient_filter)).toEqual([[P], [P], [P, Q], []]);

    const m = mix(tenant);
    const ours = all(m);
    await send(ours);
    // The open endpoint gets everything: once it has, every event was matched against every endpoint.
    expect((await once('/open', ours, ours)).sort()).toEqual([...idsOf(ours)].sort());
    const p = [...m.pPhi, ...m.pOther];
    expect(new Set(await once('/vip', p, ours))).toEqual(idsOf(p));
    expect(new Set(await once('/vip-phi', m.pPhi, ours))).toEqual(idsOf(m.pPhi));
    expect(new Set(await once('/two', [...p, ...m.q], ours))).toEqual(idsOf([...p, ...m.q]));
    // Each once: nothing else came, and nothing twice.
    expect(receivedAt('/vip', ours)).toHaveLength(p.length);
    expect(receivedAt('/vip-phi', ours)).toHaveLength(m.pPhi.length);
    expect(receivedAt('/two', ours)).toHaveLength(p.length + m.q.length);

    // The payload names the patient, and "" where the event names none.
    const patientOf = (path: string, id: string) =>
      (
        JSON.parse(
          receiver
            .at(path)
            .find((r) => r.id === id)!
            .body.toString('utf8'),
        ) as { patient_id: string }
      ).patient_id;
    expect(patientOf('/vip', m.pOther[0]!.event_id)).toBe(P);
    expect(patientOf('/two', m.q[0]!.event_id)).toBe(Q);
    expect(m.none.map((e) => patientOf('/open', e.event_id))).toEqual(['', '']);

    const created = await waitFor('the creation event', async () => {
      const [first] = await changeEvents(tenant, two.id, 'admin.webhook.create');
      return first;
    });
    expect(created.details).toMatchObject({ event_filter: [], patient_filter: [P, Q] });
  });

  it('takes a new patient filter with PATCH for every event written after the answer', async () => {
    const { tenant, key } = await tenantKey('patch');
    const moving = await endpoint(key, '/moving', { patient_filter: [P] });
    await endpoint(key, '/moving-open');
    const patch = async (patient_filter: string[]) => {
      const res = await gw.send('PATCH', `/audit/webhooks/${moving.id}`, key, { patient_filter });
      expect(res.status, res.text).toBe(200);
      expect(JSON.parse(res.text)).toEqual({ ...moving, patient_filter });
    };

    await patch([Q]);
    const first = [event(tenant, 0, 'phi.read', P), event(tenant, 1, 'phi.read', Q)];
    await send(first);
    await once('/moving-open', first, first);
    expect(await once('/moving', [first[1]!], first)).toEqual([first[1]!.event_id]);

    await patch([]);
    const second = [event(tenant, 2, 'phi.read', P), event(tenant, 3, 'phi.read')];
    await send(second);
    expect(new Set(await once('/moving', second, second))).toEqual(idsOf(second));
    expect((await listed(key)).find((e) => e.id === moving.id)?.patient_filter).toEqual([]);

    const updates = await waitFor('both update events', async () => {
      const found = await changeEvents(tenant, moving.id, 'admin.webhook.update');
      return found.length === 2 && found;
    });
    expect(
      updates
        .map((e) => e.details as { endpoint_version: number })
        .sort((a, b) => a.endpoint_version - b.endpoint_version),
    ).toEqual([
      expect.objectContaining({ changed: ['patient_filter'], patient_filter: [Q], endpoint_version: 2 }),
      expect.objectContaining({ changed: ['patient_filter'], patient_filter: [], endpoint_version: 3 }),
    ]);
  });

  it("replays a window as exactly the patient's events the endpoint was sent, also from ops", async () => {
    const { tenant, key } = await tenantKey('replay');
    const watched = await endpoint(key, '/replayed', { event_filter: ['phi.'], patient_filter: [P] });
    await endpoint(key, '/replayed-open');
    const since = new Date(Date.now() - 1000).toISOString();
    const m = mix(tenant);
    const ours = all(m);
    await send(ours);
    await once('/replayed-open', ours, ours);
    const firsts = await once('/replayed', m.pPhi, ours);
    expect(new Set(firsts)).toEqual(idsOf(m.pPhi));

    const until = new Date(Date.now() + 500).toISOString();
    await waitFor('until to pass', async () => Date.now() > Date.parse(until));
    const dryRun = await ops([
      'replay',
      'webhooks',
      '--tenant',
      tenant,
      '--endpoint',
      watched.id,
      '--since',
      since,
      '--until',
      until,
      '--dry-run',
      '--json',
    ]);
    expect(dryRun.code, dryRun.err).toBe(0);
    expect(new Set(dryRun.json<{ event_ids: string[] }>().event_ids)).toEqual(idsOf(m.pPhi));

    const started = await gw.send('POST', `/audit/webhooks/${watched.id}/replay`, key, { since, until });
    expect(started.status, started.text).toBe(202);
    const done = await waitFor('the replay to succeed', async () => {
      const r = JSON.parse((await gw.send('GET', `/audit/webhooks/${watched.id}/replay`, key)).text) as {
        status: string;
        deliveries_queued: number;
      };
      return r.status === 'succeeded' && r;
    });
    expect(done.deliveries_queued).toBe(m.pPhi.length);
    await waitFor('every replayed delivery', async () =>
      m.pPhi.every((e) => receivedAt('/replayed', ours).filter((id) => id === e.event_id).length === 2),
    );
    const replayed = await waitFor('the replayed attempts recorded', async () => {
      const { rows } = await dispatcher
        .db()
        .query<{ event_id: string }>(
          'SELECT event_id FROM webhook_delivery_attempts WHERE endpoint_id = $1 AND replay',
          [watched.id],
        );
      return rows.length === m.pPhi.length && rows;
    });
    expect(new Set(replayed.map((r) => r.event_id))).toEqual(idsOf(m.pPhi));
    expect(receivedAt('/replayed', ours)).toHaveLength(2 * m.pPhi.length);
  });

  it('refuses a bad patient filter with a 422 naming it, storing and changing nothing', async () => {
    const { key } = await tenantKey('refuse');
    const kept = await endpoint(key, '/kept', { patient_filter: [P] });
    const bad: [unknown, string[]][] = [
      ['p-1', ['patient_filter']],
      [null, ['patient_filter']],
      [[42], ['patient_filter.0']],
      [[P, ''], ['patient_filter.1']],
      [['x'.repeat(257)], ['patient_filter.0']],
      [['p-\ud800'], ['patient_filter.0']],
      [['p\u00001'], ['patient_filter.0']],
      [['p-1\n'], ['patient_filter.0']],
      [Array.from({ length: 51 }, (_, i) => `p-${i}`), ['patient_filter']],
    ];
    for (const [patient_filter, fields] of bad) {
      const created = await gw.send('POST', '/audit/webhooks', key, {
        url: receiver.url('/no'),
        patient_filter,
      });
      expect(created.status, `${JSON.stringify(patient_filter)}: ${created.text}`).toBe(422);
      expect(fieldsOf(created.text)).toEqual(fields);
      const patched = await gw.send('PATCH', `/audit/webhooks/${kept.id}`, key, { patient_filter });
      expect(patched.status, `${JSON.stringify(patient_filter)}: ${patched.text}`).toBe(422);
      expect(fieldsOf(patched.text)).toEqual(fields);
    }
    expect(await listed(key)).toEqual([expect.objectContaining({ id: kept.id, patient_filter: [P] })]);
    const { rows } = await dispatcher
      .db()
      .query<{ version: number }>('SELECT version FROM webhook_endpoints WHERE id = $1', [kept.id]);
    expect(rows).toEqual([{ version: 1 }]);
  });
});
