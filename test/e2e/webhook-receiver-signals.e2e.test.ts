import { afterAll, describe, expect, it } from 'vitest';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// The schedule in milliseconds, and a cap on Retry-After the test can wait out.
const RETRY_AFTER_MAX_S = 6;
const { names, ingest: ingestProc } = pipelineFixture('whsig');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(400),
  WEBHOOK_RETRY_JITTER: '0.2',
  WEBHOOK_RETRY_AFTER_MAX: `${RETRY_AFTER_MAX_S}s`,
});
// /gone: 410 always. /busy: 429 asking for 3 s, then 204. /overloaded: 503 asking for an hour, then 204.
// /date: 503 with an HTTP-date 2 s ahead, then 204.
const receiver = await webhookReceiver((path, _id, seen) => {
  if (path === '/gone') return 410;
  if (seen > 0) return 204;
  if (path === '/busy') return { status: 429, headers: { 'retry-after': '3' } };
  if (path === '/overloaded') return { status: 503, headers: { 'retry-after': '3600' } };
  if (path === '/date')
    return { status: 503, headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() } };
  return 204;
});
afterAll(() => receiver.close());

async function endpointAt(path: string) {
  const tenant = `${names.tenant}-${path.slice(1)}`;
  const key = await gw.mint(tenant, 'audit:read,webhooks:write');
  const res = await gw.send('POST', '/audit/webhooks', key, { url: receiver.url(path) });
  expect(res.status, res.text).toBe(201);
  const { endpoint } = JSON.parse(res.text) as { endpoint: { id: string } };
  const event = makeEvent(tenant, 0);
  expect((await ingest(ingestProc.url, names.ingestToken, [event])).status).toBe(202);
  return { tenant, key, id: endpoint.id, event };
}

/** The recorded attempts of one event's delivery to one endpoint (the endpoint also gets its tenant's other events). */
const attemptRows = async (endpointId: string, eventId: string) =>
  (
    await dispatcher
      .db()
      .query<{ attempt: number; status_code: number; terminal: boolean; next_attempt_at: Date | null }>(
        `SELECT attempt, status_code, terminal, next_attempt_at FROM webhook_delivery_attempts
         WHERE endpoint_id = $1 AND event_id = $2 ORDER BY attempt`,
        [endpointId, eventId],
      )
  ).rows;

describe('what receivers say', () => {
  it('410 Gone disables the endpoint at once, with its audit event, and the delivery is not retried', async () => {
    const { key, id, event } = await endpointAt('/gone');
    const listed = await waitFor('the endpoint disabled', async () => {
      const res = await gw.send('GET', '/audit/webhooks', key);
      const found = (JSON.parse(res.text) as { endpoints: { id: string; active: boolean }[] }).endpoints.find(
        (e) => e.id === id,
      );
      return found?.active === false ? found : undefined;
    });
    expect(listed.active).toBe(false);
    const trail = await waitFor('the auto-disable audit event', async () => {
      const res = await gw.send('GET', '/audit/events?action=admin.webhook.auto_disable', key);
      return (JSON.parse(res.text) as { events: { resource_id: string; details: string }[] }).events.find(
        (e) => e.resource_id === id,
      );
    });
    expect(JSON.parse(trail.details)).toMatchObject({ reason: 'gone', endpoint_id: id });
    expect(await attemptRows(id, event.event_id)).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 410, terminal: true, next_attempt_at: null }),
    ]);
    expect(receiver.at('/gone').filter((r) => r.id === event.event_id)).toHaveLength(1);
  });

  it.each([
    ['/busy', 'a 429 with Retry-After: 3', 3_000],
    ['/date', 'a 503 with an HTTP-date 2 s ahead', 1_000],
    ['/overloaded', `a 503 asking for an hour, capped at ${RETRY_AFTER_MAX_S} s`, RETRY_AFTER_MAX_S * 1000],
  ])('%s: %s is retried no earlier than asked, as attempt 2', async (path, _what, atLeastMs) => {
    const { id, event } = await endpointAt(path);
    const [first, second] = await waitFor(
      'the retry',
      async () => {
        const got = receiver.at(path).filter((r) => r.id === event.event_id);
        return got.length >= 2 ? got : undefined;
      },
      { timeoutMs: 120_000 },
    );
    // Never earlier than asked (the HTTP-date has whole seconds, so it may come up to 1 s sooner than 2 s).
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(atLeastMs);
    const rows = await waitFor('both attempts recorded', async () => {
      const r = await attemptRows(id, event.event_id);
      return r.length >= 2 ? r : undefined;
    });
    expect(rows.map((r) => [r.attempt, r.status_code])).toEqual([
      [1, path === '/busy' ? 429 : 503],
      [2, 204],
    ]);
    expect(rows[0]!.next_attempt_at!.getTime()).toBeGreaterThanOrEqual(first!.at + atLeastMs - 1000);
  });
});
