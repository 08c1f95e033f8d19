import { describe, expect, it, vi } from 'vitest';
import { formatApiKey, generateApiKey, type Scope } from '@audit/shared/api-keys';
import { DependencyUnavailableError } from '@audit/shared/platform';
import {
  standardWebhooksSecret,
  verifyWebhookSignature,
  type AttemptResult,
  type DeliveryRequest,
} from '@audit/shared/webhooks';
import { storedKeyFor } from '@audit/shared/test-support';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';
import { endpointRecord } from '../test-support/webhook-endpoint.js';

const key = generateApiKey('live');
const stored = storedKeyFor(key, STUB_PEPPER, { scopes: ['webhooks:write'] });
const NOW = Date.UTC(2026, 10, 26, 14, 0, 0, 123);
const CURRENT = 'ab'.repeat(32);
const PREVIOUS = 'cd'.repeat(32);

const endpoint = endpointRecord({
  tenant_id: stored.tenant_id,
  url: 'https://public.example/hook?token=t0k3n',
  event_filter: ['phi.'],
  previous_secret_expires_at: new Date(NOW + 60_000),
});

type Found = 'yes' | 'inactive' | 'missing' | 'foreign';

/** One request to the test route, over stubs that record what they were asked, in order. */
async function testSend(
  options: {
    id?: string;
    payload?: unknown;
    query?: string;
    found?: Found;
    result?: AttemptResult;
    auditDown?: boolean;
    scopes?: Scope[];
  } = {},
) {
  const log: string[] = [];
  const sent: DeliveryRequest[] = [];
  const published: { action: string; details: Record<string, unknown> }[] = [];
  const asked: { tenant: string; id: string; now: number }[] = [];
  const found = options.found ?? 'yes';
  const app = await buildApp(
    stubAppOptions({
      clock: () => NOW,
      auth: {
        pepper: STUB_PEPPER,
        env: 'live',
        findKey: async () => ({ ...stored, scopes: options.scopes ?? stored.scopes }),
      },
      auditLog: {
        publish: async (events) => {
          log.push('audit');
          if (options.auditDown) throw new DependencyUnavailableError('kafka');
          published.push(...(events as typeof published));
          return [];
        },
      },
      webhooks: {
        ...stubAppOptions().webhooks,
        signing: async (tenant, id, now) => {
          asked.push({ tenant, id, now });
          if (found === 'missing' || found === 'foreign') return { found: false, reason: found };
          return found === 'inactive'
            ? { found: true, value: { endpoint: { ...endpoint, active: false }, secrets: null } }
            : { found: true, value: { endpoint, secrets: [CURRENT, PREVIOUS] } };
        },
      },
      testSender: {
        send: async (request) => {
          log.push('send');
          sent.push(request);
          return options.result ?? { ok: true, status: 204, latencyMs: 12 };
        },
      },
    }),
  );
  const res = await app.inject({
    method: 'POST',
    url: `/api/v2/public/audit/webhooks/${options.id ?? endpoint.id}/test${options.query ?? ''}`,
    headers: { authorization: `Bearer ${formatApiKey(key)}` },
    ...(options.payload === undefined ? {} : { payload: options.payload as object }),
  });
  await app.close();
  return { res, log, sent, published, asked };
}

describe('POST /audit/webhooks/{id}/test', () => {
  it('sends the test payload, signed with every live secret, and answers the outcome', async () => {
    const { res, sent, asked } = await testSend();
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json();
    expect(answer).toEqual({
      delivered: true,
      status_code: 204,
      latency_ms: 12,
      error: null,
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    });
    expect(asked).toEqual([{ tenant: stored.tenant_id, id: endpoint.id, now: NOW }]);
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.endpointId).toBe(endpoint.id);
    expect(request!.url).toBe(endpoint.url);
    // The delivery envelope, byte for byte as the dispatcher builds it.
    expect(request!.body.toString('utf8')).toBe(
      JSON.stringify({
        type: 'webhook.test',
        id: answer.id,
        timestamp: '2026-11-26T14:00:00.123+00:00',
        tenant_id: stored.tenant_id,
        actor: { user_id: `api_key:${stored.prefix}`, user_role: 'api_key' },
        resource: { type: 'webhook_endpoint', id: endpoint.id },
        phi_involved: false,
        success: true,
        details: { message: 'A test delivery: no audit event behind it.' },
        schema_version: '1',
        patient_id: '',
      }),
    );
    expect(request!.headers['webhook-id']).toBe(answer.id);
    expect(request!.headers['webhook-timestamp']).toBe(String(Math.floor(NOW / 1000)));
    const signature = request!.headers['x-service-signature'];
    // The verifiers check the time against their clock: it is the stub clock's here.
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    try {
      for (const secret of [CURRENT, PREVIOUS]) {
        expect(verifyWebhookSignature(request!.body, signature, secret)).toBe(true);
        const standard = new Webhook(standardWebhooksSecret(secret));
        expect(() => standard.verify(request!.body, request!.headers)).not.toThrow();
      }
      expect(verifyWebhookSignature(request!.body, signature, 'ef'.repeat(32))).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes admin.webhook.test before anything is sent, never with a secret or the query', async () => {
    const { res, log, published } = await testSend({ payload: {} });
    expect(res.statusCode).toBe(200);
    expect(log).toEqual(['audit', 'send']);
    expect(published).toEqual([
      expect.objectContaining({
        action: 'admin.webhook.test',
        user_id: `api_key:${stored.prefix}`,
        resource_type: 'webhook_endpoint',
        resource_id: endpoint.id,
        details: {
          endpoint_id: endpoint.id,
          target: 'https://public.example/hook',
          url_sha256: expect.any(String),
          test_id: res.json().id,
        },
      }),
    ]);
    const text = JSON.stringify(published);
    for (const secret of ['t0k3n', CURRENT, PREVIOUS]) expect(text).not.toContain(secret);
  });

  it('answers a failed send with 200 and what went wrong', async () => {
    const { res } = await testSend({
      result: { ok: false, status: 500, error: 'status 500', latencyMs: 40, retryAfterMs: null },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      delivered: false,
      status_code: 500,
      latency_ms: 40,
      error: 'status 500',
    });
    const refused = await testSend({
      result: { ok: false, status: null, error: 'connection refused', latencyMs: 3 },
    });
    expect(refused.res.json()).toMatchObject({
      delivered: false,
      status_code: null,
      error: 'connection refused',
    });
  });

  it('sends nothing to an inactive endpoint: 409 endpoint_inactive', async () => {
    const { res, log } = await testSend({ found: 'inactive' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('endpoint_inactive');
    expect(log).toEqual([]);
  });

  it('sends nothing when the audit event cannot be published: 503', async () => {
    const { res, log } = await testSend({ auditDown: true });
    expect(res.statusCode).toBe(503);
    expect(log).toEqual(['audit']);
  });

  it.each<[string, Parameters<typeof testSend>[0], number]>([
    ['an unknown endpoint', { found: 'missing' }, 404],
    ['a malformed id', { id: 'wh_nothex!' }, 404],
    ["another tenant's endpoint", { found: 'foreign' }, 403],
    ['a key without webhooks:write', { scopes: ['audit:read'] }, 403],
    ['a body', { payload: { url: 'https://elsewhere.example/' } }, 422],
    ['a body that is no object', { payload: [] }, 422],
    ['a query parameter', { query: '?dry_run=true' }, 422],
  ])('sends nothing for %s: %i', async (_name, options, status) => {
    const { res, log } = await testSend(options);
    expect(res.statusCode, res.body).toBe(status);
    expect(log).toEqual([]);
  });
});
