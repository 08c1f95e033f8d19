import { describe, expect, it } from 'vitest';
import { createLogger } from '@audit/shared/platform';
import { type AttemptKey, type DeliveryAttempt, type DeliveryJob } from '@audit/shared/webhooks';
import type { ActiveEndpoint } from '../domain/endpoint-index.js';
import type { DeliveryState } from './delivery-state.js';
import type { AttemptResult, DeliveryRequest } from '@audit/shared/webhooks';
import { deliverer } from './deliverer.js';

const endpoint: ActiveEndpoint = {
  id: 'wh_0000abcd',
  tenantId: 'tenant-a',
  url: 'https://siem.example/hook',
  filter: [],
  patients: [],
  secret: 'whsec_test',
  previous: null,
  version: 1,
  ratePerSecond: null,
  createdAt: 0,
};
const lastAttempt: DeliveryJob = {
  endpointId: endpoint.id,
  tenantId: endpoint.tenantId,
  eventId: '00000000-0000-4000-8000-000000000001',
  body: Buffer.from('{}'),
  attempt: 3,
  dueAt: 0,
  notBefore: null,
  replay: false,
  origin: { topic: 'audit', partition: 0, offset: '7' },
  lastError: 'connection refused',
};

/** The deliverer around a receiver that always fails, with a delivery state that remembers what it was told. */
function setup(opts: {
  alreadyRecorded: boolean;
  alreadySettled: boolean;
  disables?: boolean;
  result?: AttemptResult;
  target?: ActiveEndpoint;
}) {
  const sent: string[] = [];
  const records: { topic: string; headers: Record<string, string> }[] = [];
  const requests: DeliveryRequest[] = [];
  const attempts: DeliveryAttempt[] = [];
  const counted: AttemptKey[] = [];
  const reasons: string[] = [];
  const metered: string[] = [];
  const slotsTaken: number[] = [];
  const state = {
    recordAttempt: async (attempt: DeliveryAttempt) => {
      attempts.push(attempt);
      return !opts.alreadyRecorded;
    },
    settled: async () => opts.alreadySettled,
    terminalFailure: async (_: unknown, key: AttemptKey, reason: string) => {
      counted.push(key);
      reasons.push(reason);
      return opts.disables ?? false;
    },
  } as unknown as DeliveryState;
  const deliver = deliverer({
    directory: { get: () => opts.target ?? endpoint, forget: () => undefined },
    slots: {
      take: async (_id, intervalMs) => {
        slotsTaken.push(intervalMs);
        return 0;
      },
      pass: async () => 0,
    },
    send: async (request) => {
      requests.push(request);
      return opts.result ?? { ok: false, status: 503, error: 'status 503', latencyMs: 1 };
    },
    state,
    producer: {
      send: async (record) => {
        sent.push(record.topic);
        records.push({ topic: record.topic, headers: record.messages[0]!.headers as Record<string, string> });
        return [];
      },
    },
    retryTopics: ['retry.1', 'retry.2'],
    deadLetterTopic: 'dlq',
    policy: { delaysMs: [60_000, 300_000], jitter: 0, retryAfterMaxMs: 86_400_000 },
    clock: () => 1_000,
    random: () => 0.5,
    stopping: () => false,
    logger: createLogger('test', 'silent'),
    meter: {
      attempted: (result) => metered.push(result.ok ? 'attempt ok' : 'attempt failed'),
      deadLettered: () => metered.push('dead letter'),
      autoDisabled: () => metered.push('auto-disable'),
    },
  });
  return { deliver, sent, records, requests, attempts, counted, reasons, metered, slotsTaken };
}

const key = { endpoint_id: endpoint.id, event_id: lastAttempt.eventId, attempt: 3, replay: false };

describe('deliverer, last attempt failed', () => {
  it('dead-letters and counts the attempt it recorded', async () => {
    const { deliver, sent, counted, metered } = setup({ alreadyRecorded: false, alreadySettled: false });
    expect(await deliver(lastAttempt)).toBe('terminal');
    expect(sent).toEqual(['dlq']);
    expect(counted).toEqual([key]);
    expect(metered).toEqual(['attempt failed', 'dead letter']);
  });

  it('reports an endpoint its failure disabled', async () => {
    const { deliver, metered } = setup({ alreadyRecorded: false, alreadySettled: false, disables: true });
    expect(await deliver(lastAttempt)).toBe('terminal');
    expect(metered).toEqual(['attempt failed', 'dead letter', 'auto-disable']);
  });

  it('finishes a redo whose first run recorded the attempt but stopped before settling it', async () => {
    const { deliver, sent, counted } = setup({ alreadyRecorded: true, alreadySettled: false });
    expect(await deliver(lastAttempt)).toBe('terminal');
    expect(sent).toEqual(['dlq']);
    expect(counted).toEqual([key]);
  });

  it('does nothing more on a redo of a delivery already settled', async () => {
    const { deliver, sent, counted, metered } = setup({ alreadyRecorded: true, alreadySettled: true });
    expect(await deliver(lastAttempt)).toBe('terminal');
    expect(sent).toEqual([]);
    expect(counted).toEqual([]);
    expect(metered).toEqual(['attempt failed']);
  });

  it('hands an earlier failed attempt to its next tier, also on a redo', async () => {
    const { deliver, sent } = setup({ alreadyRecorded: true, alreadySettled: false });
    expect(await deliver({ ...lastAttempt, attempt: 2 })).toBe('retry');
    expect(sent).toEqual(['retry.2']);
  });
});

describe('deliverer, what receivers say', () => {
  const first = { ...lastAttempt, attempt: 1 };

  it('gives up on 410 Gone at the first attempt: no retry, dead letter, and the endpoint disabled at once', async () => {
    const { deliver, sent, reasons, attempts } = setup({
      alreadyRecorded: false,
      alreadySettled: false,
      disables: true,
      result: { ok: false, status: 410, error: 'status 410', latencyMs: 1 },
    });
    expect(await deliver(first)).toBe('terminal');
    expect(sent).toEqual(['dlq']);
    expect(reasons).toEqual(['gone']);
    expect(attempts[0]).toMatchObject({
      attempt: 1,
      terminal: true,
      status_code: 410,
      next_attempt_at: null,
    });
  });

  it('holds a retry back as long as Retry-After asks, as the next attempt, hopping through the tiers', async () => {
    const { deliver, records, attempts } = setup({
      alreadyRecorded: false,
      alreadySettled: false,
      result: { ok: false, status: 429, error: 'status 429', latencyMs: 1, retryAfterMs: 3_600_000 },
    });
    expect(await deliver(first)).toBe('retry');
    // One hour: the longest tier that ends before it (5 min, no jitter here), due at that tier's earliest.
    expect(records).toEqual([
      {
        topic: 'retry.2',
        headers: expect.objectContaining({
          'wh-attempt': '2',
          'wh-due-at': String(1_000 + 300_000),
          'wh-not-before': String(1_000 + 3_600_000),
        }) as unknown as Record<string, string>,
      },
    ]);
    expect(attempts[0]!.next_attempt_at).toEqual(new Date(1_000 + 3_600_000));
  });

  it('signs with every live secret in both schemes, the event id as webhook-id', async () => {
    const { deliver, requests } = setup({
      alreadyRecorded: false,
      alreadySettled: false,
      result: { ok: true, status: 204, latencyMs: 1 },
      target: { ...endpoint, previous: { secret: 'old-secret', expiresAt: 2_000 } },
    });
    expect(await deliver(first)).toBe('delivered');
    const headers = requests[0]!.headers;
    expect(headers['x-service-signature']).toMatch(/^t=1,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(headers['webhook-id']).toBe(first.eventId);
    expect(headers['webhook-timestamp']).toBe('1');
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
  });
});

describe('deliverer, rate-limited endpoint', () => {
  it('takes a slot, spaced for the limit, before each attempt, and none for an endpoint without a limit', async () => {
    const limited = setup({
      alreadyRecorded: false,
      alreadySettled: false,
      result: { ok: true, status: 204, latencyMs: 1 },
      target: { ...endpoint, ratePerSecond: 4 },
    });
    await limited.deliver({ ...lastAttempt, attempt: 1 });
    await limited.deliver({ ...lastAttempt, attempt: 1 });
    expect(limited.slotsTaken).toEqual([337.5, 337.5]);
    const free = setup({
      alreadyRecorded: false,
      alreadySettled: false,
      result: { ok: true, status: 204, latencyMs: 1 },
    });
    await free.deliver({ ...lastAttempt, attempt: 1 });
    expect(free.slotsTaken).toEqual([]);
  });
});
