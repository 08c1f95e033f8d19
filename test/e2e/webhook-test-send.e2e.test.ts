import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiKey } from '@audit/shared/api-keys';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { npmStandardVerified } from '../support/standard-webhooks.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver } from '../support/webhook-receiver.js';

// Test sends come from the gateway itself: no dispatcher runs here, so whatever reaches the receiver, and whatever
// is written about it, is the gateway's doing.
const { names, ch } = pipelineFixture('whtest');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
// Paths ending in /fail answer 500; every other one 204.
const receiver = await webhookReceiver((path) => (path.endsWith('/fail') ? 500 : 204));
afterAll(() => receiver.close());

let key: string;
let otherKey: string;
let db: pg.Client;

beforeAll(async () => {
  key = await gw.mint(names.tenant, 'audit:read,webhooks:write');
  otherKey = await gw.mint(`${names.tenant}-other`, 'audit:read,webhooks:write');
  db = new pg.Client({ connectionString: gw.databaseUrl() });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
});

type Secrets = { secret: string; standard_webhooks_secret: string };
type Outcome = {
  delivered: boolean;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  id: string;
};

async function endpointAt(path: string): Promise<Secrets & { id: string }> {
  // Only phi. events would be delivered: the admin.webhook.* events these calls write never are.
  const res = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url(path),
    event_filter: ['phi.'],
  });
  expect(res.status, res.text).toBe(201);
  const created = JSON.parse(res.text) as Secrets & { endpoint: { id: string } };
  return { ...created, id: created.endpoint.id };
}

async function testSend(id: string, as = key, body?: unknown) {
  const res = await gw.send('POST', `/audit/webhooks/${id}/test`, as, body);
  return { status: res.status, text: res.text, outcome: () => JSON.parse(res.text) as Outcome };
}

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST /audit/webhooks/{id}/test', () => {
  it('delivers a signed webhook.test payload at once, which independent and official verifiers accept', async () => {
    const endpoint = await endpointAt('/ok');
    const res = await testSend(endpoint.id);
    expect(res.status, res.text).toBe(200);
    const outcome = res.outcome();
    expect(outcome).toEqual({
      delivered: true,
      status_code: 204,
      latency_ms: expect.any(Number),
      error: null,
      id: expect.stringMatching(uuidV4),
    });
    // Answered after the receiver answered: it has the request already.
    const got = receiver.at('/ok').filter((r) => r.id === outcome.id);
    expect(got).toHaveLength(1);
    const delivery = got[0]!;
    expect(delivery.headers['content-type']).toMatch(/^application\/json/);
    expect(delivery.headers['webhook-id']).toBe(outcome.id);
    expect(JSON.parse(delivery.body.toString('utf8'))).toEqual({
      type: 'webhook.test',
      id: outcome.id,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
      tenant_id: names.tenant,
      actor: { user_id: `api_key:${parseApiKey(key)!.prefix}`, user_role: 'api_key' },
      resource: { type: 'webhook_endpoint', id: endpoint.id },
      phi_involved: false,
      success: true,
      details: { message: 'A test delivery: no audit event behind it.' },
      schema_version: '1',
      patient_id: '',
    });
    expect(independentlyVerified(delivery, endpoint.secret)).toBe(true);
    expect(npmStandardVerified(delivery, endpoint.standard_webhooks_secret)).toBe(true);
    expect(independentlyVerified(delivery, 'ab'.repeat(32))).toBe(false);
    // A fresh id for every send.
    const again = await testSend(endpoint.id, key, {});
    expect(again.status).toBe(200);
    expect(again.outcome().id).not.toBe(outcome.id);
  });

  it("signs with both secrets during a rotation's overlap", async () => {
    const endpoint = await endpointAt('/rotated');
    const rotated = await gw.send('POST', `/audit/webhooks/${endpoint.id}/rotate-secret`, key, {
      overlap_seconds: 3600,
    });
    expect(rotated.status, rotated.text).toBe(200);
    const next = JSON.parse(rotated.text) as Secrets;
    const { id } = (await testSend(endpoint.id)).outcome();
    const delivery = receiver.at('/rotated').find((r) => r.id === id)!;
    for (const secrets of [endpoint, next]) {
      expect(independentlyVerified(delivery, secrets.secret)).toBe(true);
      expect(npmStandardVerified(delivery, secrets.standard_webhooks_secret)).toBe(true);
    }
  });

  it("answers a receiver's 500 as not delivered, counts no failure and records no attempt", async () => {
    const endpoint = await endpointAt('/fail');
    const res = await testSend(endpoint.id);
    expect(res.status, res.text).toBe(200);
    expect(res.outcome()).toMatchObject({ delivered: false, status_code: 500, error: 'status 500' });
    expect(receiver.at('/fail')).toHaveLength(1);
    const row = await db.query<{ consecutive_failures: number; last_delivery_at: Date | null }>(
      'SELECT consecutive_failures, last_delivery_at FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(row.rows).toEqual([{ consecutive_failures: 0, last_delivery_at: null }]);
    const attempts = await db.query('SELECT 1 FROM webhook_delivery_attempts WHERE endpoint_id = $1', [
      endpoint.id,
    ]);
    expect(attempts.rowCount).toBe(0);
    const listed = await gw.send('GET', `/audit/webhooks/${endpoint.id}/attempts`, key);
    expect(JSON.parse(listed.text)).toMatchObject({ attempts: [] });
  });

  it("sends nothing to a disabled endpoint (409) or for another tenant's key (403)", async () => {
    const endpoint = await endpointAt('/disabled');
    expect((await gw.send('POST', `/audit/webhooks/${endpoint.id}/disable`, key)).status).toBe(200);
    const inactive = await testSend(endpoint.id);
    expect(inactive.status).toBe(409);
    expect(JSON.parse(inactive.text)).toMatchObject({ error: 'endpoint_inactive' });
    const active = await endpointAt('/foreign');
    expect((await testSend(active.id, otherKey)).status).toBe(403);
    expect((await testSend('wh_00000000')).status).toBe(404);
    expect((await testSend(active.id, key, { url: 'http://127.0.0.1:1/' })).status).toBe(422);
    expect(receiver.at('/disabled')).toHaveLength(0);
    expect(receiver.at('/foreign')).toHaveLength(0);
  });

  it('writes admin.webhook.test into the trail, naming the test payload', async () => {
    const endpoint = await endpointAt('/audited?token=s3cr3t-test');
    const { id } = (await testSend(endpoint.id)).outcome();
    const tests = async () =>
      (await storedEvents(ch, names.tenant)).filter(
        (e) => e.resource_id === endpoint.id && e.action === 'admin.webhook.test',
      );
    await waitFor('the test event', async () => (await tests()).length === 1);
    const [event] = await tests();
    expect(event).toMatchObject({
      resource_type: 'webhook_endpoint',
      user_id: `api_key:${parseApiKey(key)!.prefix}`,
      details: {
        endpoint_id: endpoint.id,
        target: receiver.url('/audited'),
        url_sha256: expect.any(String),
        test_id: id,
      },
    });
    expect(JSON.stringify(event)).not.toContain('s3cr3t-test');
    expect(JSON.stringify(event)).not.toContain(endpoint.secret);
  });
});
