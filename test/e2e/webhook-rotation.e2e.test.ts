import { afterAll, describe, expect, it } from 'vitest';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { npmStandardVerified } from '../support/standard-webhooks.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver, type Received } from '../support/webhook-receiver.js';

// Long enough that the deliveries of events sent right after the rotation are attempted within it.
const OVERLAP_S = 12;
const { names, ingest: ingestProc } = pipelineFixture('whrot');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
dispatcherFixture(names, gw, {});
const receiver = await webhookReceiver(() => 204);
afterAll(() => receiver.close());

interface Secrets {
  secret: string;
  standard_webhooks_secret: string;
}

/** What a receiver holding only these secrets makes of a delivery, with each scheme's verifier. */
const verifiedBy = (delivery: Received, s: Secrets, at: number) => ({
  spec: independentlyVerified(delivery, s.secret, at),
  standard: npmStandardVerified(delivery, s.standard_webhooks_secret),
});

/** The attempt's time, from its signature: what decides which secrets signed it. */
const signedAt = (d: Received) => Number(/t=(\d+)/.exec(String(d.headers['x-service-signature']))![1]) * 1000;

describe('webhook secret rotation', () => {
  it('signs with both secrets during the overlap and with the new one after it, losing no delivery', async () => {
    const tenant = `${names.tenant}-rot`;
    const key = await gw.mint(tenant, 'audit:read,webhooks:write');
    const created = await gw.send('POST', '/audit/webhooks', key, { url: receiver.url('/siem') });
    expect(created.status, created.text).toBe(201);
    const { endpoint, ...oldSecrets } = JSON.parse(created.text) as Secrets & { endpoint: { id: string } };
    const send = async (list: TestEvent[]) =>
      expect((await ingest(ingestProc.url, names.ingestToken, list)).status).toBe(202);
    const before = Array.from({ length: 3 }, (_, i) => makeEvent(tenant, i));
    await send(before);

    const rotated = await gw.send('POST', `/audit/webhooks/${endpoint.id}/rotate-secret`, key, {
      overlap_seconds: OVERLAP_S,
    });
    expect(rotated.status, rotated.text).toBe(200);
    const { previous_secret_expires_at, ...newSecrets } = JSON.parse(rotated.text) as Secrets & {
      previous_secret_expires_at: string;
    };
    expect(newSecrets.secret).not.toBe(oldSecrets.secret);
    const overlapEnds = Date.parse(previous_secret_expires_at);
    // Sent at once after the answer: every one of these is for the endpoint as rotated.
    const during = Array.from({ length: 5 }, (_, i) => makeEvent(tenant, 10 + i));
    await send(during);
    const listed = JSON.parse((await gw.send('GET', '/audit/webhooks', key)).text) as {
      endpoints: { id: string; previous_secret_expires_at: string | null }[];
    };
    expect(listed.endpoints.find((e) => e.id === endpoint.id)?.previous_secret_expires_at).toBe(
      previous_secret_expires_at,
    );

    await waitFor('the overlap to end', async () => (Date.now() > overlapEnds + 1000 ? true : undefined), {
      timeoutMs: (OVERLAP_S + 30) * 1000,
    });
    const after = Array.from({ length: 3 }, (_, i) => makeEvent(tenant, 20 + i));
    await send(after);

    const all = [...before, ...during, ...after];
    const deliveries = await waitFor('every delivery', async () => {
      const got = receiver.at('/siem');
      return all.every((e) => got.some((d) => d.id === e.event_id)) ? got : undefined;
    });
    for (const event of all) {
      const delivery = deliveries.find((d) => d.id === event.event_id)!;
      const at = signedAt(delivery);
      const withOld = verifiedBy(delivery, oldSecrets, at);
      const withNew = verifiedBy(delivery, newSecrets, at);
      const label = `${event.event_id} (${before.includes(event) ? 'before' : during.includes(event) ? 'during' : 'after'})`;
      if (before.includes(event)) {
        // Attempted before the rotation, or during its overlap: the old secret verifies it either way.
        expect(withOld, label).toEqual({ spec: true, standard: true });
      } else if (during.includes(event)) {
        // Attempted within the overlap: a receiver with either secret alone verifies it.
        expect(at, label).toBeLessThan(overlapEnds);
        expect(withOld, label).toEqual({ spec: true, standard: true });
        expect(withNew, label).toEqual({ spec: true, standard: true });
      } else {
        expect(at, label).toBeGreaterThan(overlapEnds);
        expect(withNew, label).toEqual({ spec: true, standard: true });
        expect(withOld, label).toEqual({ spec: false, standard: false });
      }
    }
    const relisted = JSON.parse((await gw.send('GET', '/audit/webhooks', key)).text) as {
      endpoints: { id: string; previous_secret_expires_at: string | null }[];
    };
    expect(relisted.endpoints.find((e) => e.id === endpoint.id)?.previous_secret_expires_at).toBeNull();
    // The rotation is in the tenant's trail, without a secret.
    const trail = await waitFor('the rotation audit event', async () => {
      const res = await gw.send('GET', '/audit/events?action=admin.webhook.rotate_secret', key);
      const page = JSON.parse(res.text) as { events: { resource_id: string; details: string }[] };
      return page.events.find((e) => e.resource_id === endpoint.id);
    });
    expect(trail.details).not.toContain(newSecrets.secret);
    expect(trail.details).not.toContain(oldSecrets.secret);
    expect(JSON.parse(trail.details)).toMatchObject({ endpoint_version: 2, previous_secret_expires_at });
  });
});
