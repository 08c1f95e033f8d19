import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared/api-keys';
import { type WebhookReplay } from '@audit/shared/webhooks';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const stored = storedKeyFor(key, STUB_PEPPER, { scopes: ['webhooks:write', 'audit:read'] });
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);

const replay: WebhookReplay = {
  id: '5a2f3c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b',
  endpointId: 'wh_0000abcd',
  tenantId: stored.tenant_id,
  since: NOW - 86_400_000,
  until: NOW,
  requestedBy: 'api_key:x',
  createdAt: NOW,
  status: 'queued',
  startedAt: null,
  finishedAt: null,
  attempts: 0,
  recordsRead: 0,
  deliveriesQueued: 0,
  topic: null,
  partition: null,
  nextOffset: null,
  endOffset: null,
  error: null,
};

type Outcome = 'replay' | 'inactive' | 'inProgress' | 'missing' | 'foreign';

async function call(
  method: 'POST' | 'GET',
  payload?: unknown,
  outcome: Outcome = 'replay',
  id = 'wh_0000abcd',
) {
  const started: { since: number; until: number }[] = [];
  const published: { action: string; details: Record<string, unknown> }[] = [];
  const app = await buildApp(
    stubAppOptions({
      clock: () => NOW,
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
      auditLog: {
        publish: async (events) => {
          published.push(...(events as typeof published));
          return [];
        },
      },
      webhooks: {
        ...stubAppOptions().webhooks,
        startReplay: async (_tenant, _id, window, _by, audit) => {
          if (outcome === 'missing' || outcome === 'foreign') return { found: false, reason: outcome };
          if (outcome !== 'replay') return { found: true, value: { [outcome]: true } as { inactive: true } };
          started.push(window);
          const endpoint = { id: 'wh_0000abcd', url: 'https://siem.example/hook' } as Parameters<
            typeof audit
          >[0];
          await audit(endpoint, { ...replay, ...window });
          return { found: true, value: { replay: { ...replay, ...window } } };
        },
        latestReplay: async () =>
          outcome === 'missing' || outcome === 'foreign'
            ? { found: false, reason: outcome }
            : { found: true, value: outcome === 'replay' ? replay : null },
      },
    }),
  );
  const res = await app.inject({
    method,
    url: `/api/v2/public/audit/webhooks/${id}/replay`,
    headers: { authorization: `Bearer ${formatApiKey(key)}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  await app.close();
  return { res, started, published };
}

describe('POST /audit/webhooks/{id}/replay', () => {
  it('queues the window (until now when not given) with its audit event, and answers 202 with the replay', async () => {
    const { res, started, published } = await call('POST', { since: '2026-11-25T12:00:00Z' });
    expect(res.statusCode, res.body).toBe(202);
    expect(started).toEqual([{ since: NOW - 86_400_000, until: NOW }]);
    expect(res.json()).toMatchObject({
      id: replay.id,
      status: 'queued',
      since: '2026-11-25T12:00:00.000+00:00',
      until: '2026-11-26T12:00:00.000+00:00',
      deliveries_queued: 0,
    });
    expect(published).toEqual([
      expect.objectContaining({
        action: 'admin.webhook.replay',
        details: expect.objectContaining({ replay_id: replay.id, since: '2026-11-25T12:00:00.000+00:00' }),
      }),
    ]);
  });

  it.each([
    [undefined],
    [{ since: 'yesterday' }],
    [{ since: '2026-11-25T12:00:00Z', until: '2026-11-27T00:00:00Z' }],
    [{ since: '2026-09-01T00:00:00Z' }],
    [{ since: '2026-11-25T12:00:00Z', filter: ['phi.'] }],
  ])('refuses %j with 422, queuing nothing', async (payload) => {
    const { res, started } = await call('POST', payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(started).toEqual([]);
  });

  it('answers 409 for an inactive endpoint and for one with a replay in flight, 403 and 404 as disable does', async () => {
    const body = { since: '2026-11-25T12:00:00Z' };
    expect((await call('POST', body, 'inactive')).res.json().error).toBe('endpoint_inactive');
    const busy = (await call('POST', body, 'inProgress')).res;
    expect([busy.statusCode, busy.json().error]).toEqual([409, 'replay_in_progress']);
    expect((await call('POST', body, 'foreign')).res.statusCode).toBe(403);
    expect((await call('POST', body, 'missing')).res.statusCode).toBe(404);
    expect((await call('POST', body, 'replay', 'wh_nope')).res.statusCode).toBe(404);
  });
});

describe('GET /audit/webhooks/{id}/replay', () => {
  it("answers the newest replay, and 404 before the endpoint's first", async () => {
    const { res } = await call('GET');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: replay.id, status: 'queued', started_at: null, error: null });
    expect((await call('GET', undefined, 'inProgress')).res.statusCode).toBe(404);
    expect((await call('GET', undefined, 'foreign')).res.statusCode).toBe(403);
  });
});
