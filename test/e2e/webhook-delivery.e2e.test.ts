import { afterAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver } from '../support/webhook-receiver.js';

const DELAY_MS = 400;
const JITTER = 0.2;
const { names, ingest: ingestProc } = pipelineFixture('whdel');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
// The spec's schedule compressed to milliseconds; everything else as in production.
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(DELAY_MS),
  WEBHOOK_RETRY_JITTER: String(JITTER),
  WEBHOOK_TIMEOUT_MS: '2000',
});
// Paths ending in /dead always fail, /twice fail twice per event then succeed; anything else succeeds.
const receiver = await webhookReceiver((path, _id, seen) =>
  path.endsWith('/dead') ? 500 : path.endsWith('/twice') && seen < 2 ? 503 : 204,
);
afterAll(() => receiver.close());

async function tenantWithEndpoint(label: string, path: string, filter: string[] = []) {
  const tenant = `${names.tenant}-${label}`;
  const key = await gw.mint(tenant, 'audit:read,webhooks:write');
  const res = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url(path),
    event_filter: filter,
  });
  expect(res.status, res.text).toBe(201);
  const created = JSON.parse(res.text) as { endpoint: { id: string }; secret: string };
  return { tenant, key, id: created.endpoint.id, secret: created.secret };
}

const events = (tenant: string, n: number, action?: string) =>
  Array.from({ length: n }, (_, i) => ({ ...makeEvent(tenant, i), ...(action ? { action } : {}) }));

async function send(list: TestEvent[]) {
  expect((await ingest(ingestProc.url, names.ingestToken, list)).status).toBe(202);
}

const endpointRow = async (id: string) =>
  (
    await dispatcher
      .db()
      .query<{ active: boolean; consecutive_failures: number }>(
        'SELECT active, consecutive_failures FROM webhook_endpoints WHERE id = $1',
        [id],
      )
  ).rows[0];

describe('webhook delivery', () => {
  it('POSTs the spec payload once, signed so that an independent receiver verifies it', async () => {
    const { tenant, secret } = await tenantWithEndpoint('signed', '/signed');
    const [event] = events(tenant, 1, 'phi.read');
    await send([event!]);
    const got = await waitFor('delivery', async () =>
      receiver.at('/signed').find((r) => r.id === event!.event_id),
    );
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(got.body.toString('utf8'))).toEqual({
      type: 'phi.read',
      id: event!.event_id,
      timestamp: event!.timestamp.replace('Z', '+00:00'),
      tenant_id: tenant,
      actor: { user_id: event!.user_id, user_role: event!.user_role },
      resource: { type: event!.resource_type, id: event!.resource_id },
      phi_involved: event!.phi_involved,
      success: event!.success,
      details: event!.details,
      schema_version: '1',
      patient_id: '',
    });
    expect(independentlyVerified(got, secret)).toBe(true);
    expect(independentlyVerified(got, 'ab'.repeat(32))).toBe(false);
    expect(independentlyVerified({ ...got, body: Buffer.concat([got.body, Buffer.from(' ')]) }, secret)).toBe(
      false,
    );
  });

  it('matches filters by prefix, as the spec examples say', async () => {
    const tenant = `${names.tenant}-filters`;
    const key = await gw.mint(tenant, 'audit:read,webhooks:write');
    const filters: Record<string, string[]> = {
      '/f-all': [],
      '/f-phi': ['phi.'],
      '/f-read': ['phi.read'],
      '/f-phi-admin': ['phi.', 'admin.'],
    };
    for (const [path, event_filter] of Object.entries(filters)) {
      const res = await gw.send('POST', '/audit/webhooks', key, { url: receiver.url(path), event_filter });
      expect(res.status).toBe(201);
    }
    const actions = [
      'phi.read',
      'phi.query',
      'phi.export',
      'phi.decrypt',
      'admin.user.update',
      'record.update',
    ];
    const sent = actions.map((action, i) => ({ ...makeEvent(tenant, i), action }));
    await send(sent);
    const ours = new Map<string, string>(sent.map((e) => [e.event_id, e.action]));
    const actionsAt = (path: string) =>
      receiver
        .at(path)
        .filter((r) => ours.has(r.id))
        .map((r) => ours.get(r.id))
        .sort();
    await waitFor('every filtered delivery', async () => actionsAt('/f-all').length === actions.length);
    await waitFor('the narrower ones', async () => actionsAt('/f-phi-admin').length === 5);
    expect(actionsAt('/f-all')).toEqual([...actions].sort());
    expect(actionsAt('/f-phi')).toEqual(['phi.decrypt', 'phi.export', 'phi.query', 'phi.read']);
    expect(actionsAt('/f-read')).toEqual(['phi.read']);
    expect(actionsAt('/f-phi-admin')).toEqual([
      'admin.user.update',
      'phi.decrypt',
      'phi.export',
      'phi.query',
      'phi.read',
    ]);
  });

  it('retries a receiver that fails twice: exactly three attempts, same body and id, none before its due time', async () => {
    const { tenant, id } = await tenantWithEndpoint('twice', '/twice', ['phi.']);
    const [event] = events(tenant, 1, 'phi.query');
    await send([event!]);
    await waitFor('three attempts', async () => receiver.at('/twice').length === 3);
    const attempts = receiver.at('/twice');
    expect(new Set(attempts.map((a) => a.body.toString('base64'))).size).toBe(1);
    expect(attempts.every((a) => a.id === event!.event_id)).toBe(true);
    for (let i = 1; i < attempts.length; i++) {
      // The retry is due DELAY ± jitter after the failure, and the failure came after the receiver answered.
      expect(attempts[i]!.at - attempts[i - 1]!.at).toBeGreaterThanOrEqual(
        Math.floor(DELAY_MS * (1 - JITTER)),
      );
    }
    const rows = await waitFor('three recorded attempts', async () => {
      const r = await dispatcher
        .db()
        .query<{ attempt: number; succeeded: boolean; status_code: number }>(
          'SELECT attempt, succeeded, status_code FROM webhook_delivery_attempts WHERE endpoint_id = $1 ORDER BY attempt',
          [id],
        );
      return r.rows.length === 3 && r.rows;
    });
    expect(rows).toEqual([
      { attempt: 1, succeeded: false, status_code: 503 },
      { attempt: 2, succeeded: false, status_code: 503 },
      { attempt: 3, succeeded: true, status_code: 204 },
    ]);
    expect(await endpointRow(id)).toEqual({ active: true, consecutive_failures: 0 });
  });

  it('gives a dead receiver six attempts per event, disables it after ten terminal failures, and sends nothing more', async () => {
    const { tenant, key, id } = await tenantWithEndpoint('dead', '/dead', ['phi.']);
    const first = events(tenant, 10, 'phi.read');
    await send(first);
    await waitFor('endpoint disabled', async () => (await endpointRow(id))?.active === false, {
      timeoutMs: 60_000,
    });
    const counts = first.map((e) => receiver.at('/dead').filter((r) => r.id === e.event_id).length);
    expect(counts).toEqual(Array.from({ length: 10 }, () => 6));
    const listed = JSON.parse((await gw.send('GET', '/audit/webhooks', key)).text) as {
      endpoints: {
        id: string;
        active: boolean;
        consecutive_failures: number;
        last_delivery_at: string | null;
      }[];
    };
    expect(listed.endpoints).toEqual([
      expect.objectContaining({
        id,
        active: false,
        consecutive_failures: 10,
        last_delivery_at: expect.any(String),
      }),
    ]);
    const before = receiver.at('/dead').length;
    await send(events(tenant, 3, 'phi.read'));
    // Nothing may arrive; wait out more than a whole retry schedule before looking.
    await new Promise((r) => setTimeout(r, DELAY_MS * 5 * (1 + JITTER) + 1000));
    expect(receiver.at('/dead').length).toBe(before);
  });
});
