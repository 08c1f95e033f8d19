import { afterAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

const DELAY_MS = 400;
const JITTER = 0.2;
const { names, ingest: ingestProc } = pipelineFixture('whatt');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(DELAY_MS),
  WEBHOOK_RETRY_JITTER: String(JITTER),
  WEBHOOK_TIMEOUT_MS: '2000',
});
// Fails twice per event, then succeeds.
const receiver = await webhookReceiver((_path, _id, seen) => (seen < 2 ? 503 : 204));
afterAll(() => receiver.close());

interface Attempt {
  event_id: string;
  attempt: number;
  attempted_at: string;
  outcome: 'succeeded' | 'failed';
  terminal: boolean;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  next_attempt_at: string | null;
  replay: boolean;
}
interface AttemptPage {
  attempts: Attempt[];
  page: { limit: number; returned: number; next_cursor: string | null; has_more: boolean };
}

async function tenantWithEndpoint(label: string) {
  const tenant = `${names.tenant}-${label}`;
  const key = await gw.mint(tenant, 'audit:read,webhooks:write');
  // Only PHI events: the endpoint's own admin.webhook.create event is not delivered to it.
  const res = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url(`/${label}`),
    event_filter: ['phi.'],
  });
  expect(res.status, res.text).toBe(201);
  return { tenant, key, id: (JSON.parse(res.text) as { endpoint: { id: string } }).endpoint.id };
}

const attemptsOf = async (id: string, key: string, query = '') => {
  const res = await gw.get(`/audit/webhooks/${id}/attempts${query}`, key);
  return { status: res.status, body: JSON.parse(res.text) as AttemptPage };
};

describe('webhook delivery attempts, read by the endpoint owner', () => {
  it('shows a receiver that failed twice: attempts 1..3, newest first, with what happened next', async () => {
    const owner = await tenantWithEndpoint('owner');
    const event = { ...makeEvent(owner.tenant, 0), action: 'phi.read' };
    expect((await ingest(ingestProc.url, names.ingestToken, [event])).status).toBe(202);

    const { attempts, page } = await waitFor('three recorded attempts', async () => {
      const { status, body } = await attemptsOf(owner.id, owner.key);
      return status === 200 && body.attempts.length === 3 && body;
    });
    expect(page).toEqual({ limit: 100, returned: 3, next_cursor: null, has_more: false });
    expect(attempts.map((a) => [a.attempt, a.outcome, a.status_code, a.error])).toEqual([
      [3, 'succeeded', 204, null],
      [2, 'failed', 503, 'status 503'],
      [1, 'failed', 503, 'status 503'],
    ]);
    for (const a of attempts) {
      expect(a).toMatchObject({ event_id: event.event_id, terminal: false, replay: false });
      expect(a.attempted_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
      expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    }
    const [third, second, first] = attempts as [Attempt, Attempt, Attempt];
    expect(third.next_attempt_at).toBeNull();
    // A failed attempt says when its retry is due: a tier's delay (with jitter) later, and the retry was not
    // made before it.
    for (const [failed, retry] of [
      [first, second],
      [second, third],
    ] as const) {
      const due = Date.parse(failed.next_attempt_at!);
      const delay = due - Date.parse(failed.attempted_at);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(DELAY_MS * (1 - JITTER)));
      expect(delay).toBeLessThanOrEqual(Math.ceil(DELAY_MS * (1 + JITTER)) + 2000);
      expect(Date.parse(retry.attempted_at)).toBeGreaterThanOrEqual(due);
    }
    // The same three, as the dispatcher recorded them.
    const rows = await dispatcher
      .db()
      .query<{ n: string }>('SELECT count(*) AS n FROM webhook_delivery_attempts WHERE endpoint_id = $1', [
        owner.id,
      ]);
    expect(rows.rows[0]!.n).toBe('3');

    // Filters and pages, through the real gateway and Postgres.
    const failed = await attemptsOf(owner.id, owner.key, '?outcome=failed');
    expect(failed.body.attempts.map((a) => a.attempt)).toEqual([2, 1]);
    const byEvent = await attemptsOf(owner.id, owner.key, `?event_id=${event.event_id.toUpperCase()}`);
    expect(byEvent.body.attempts.map((a) => a.attempt)).toEqual([3, 2, 1]);
    const firstPage = await attemptsOf(owner.id, owner.key, '?limit=2');
    expect(firstPage.body.page).toMatchObject({ returned: 2, has_more: true });
    const nextPage = await attemptsOf(
      owner.id,
      owner.key,
      `?limit=2&cursor=${firstPage.body.page.next_cursor}`,
    );
    expect(nextPage.body.attempts.map((a) => a.attempt)).toEqual([1]);
    expect(nextPage.body.page).toEqual({ limit: 2, returned: 1, next_cursor: null, has_more: false });
  });

  it("refuses another tenant's endpoint (403), and an id that does not exist (404)", async () => {
    const owner = await tenantWithEndpoint('mine');
    const stranger = await tenantWithEndpoint('theirs');
    const foreign = await gw.get(`/audit/webhooks/${owner.id}/attempts`, stranger.key);
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text)).toEqual({
      error: 'forbidden',
      message: 'This webhook endpoint belongs to another tenant.',
    });
    expect((await gw.get('/audit/webhooks/wh_00000000/attempts', owner.key)).status).toBe(404);
    expect((await attemptsOf(owner.id, owner.key)).status).toBe(200);
  });
});
