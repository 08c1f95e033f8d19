import { describe, expect, it } from 'vitest';
import { createLogger, type AttemptKey, type DeliveryAttempt, type DeliveryJob } from '@audit/shared';
import type { ActiveEndpoint } from '../domain/endpoint-index.js';
import type { DeliveryState } from './delivery-state.js';
import { deliverer } from './deliverer.js';

const endpoint: ActiveEndpoint = {
  id: 'wh_0000abcd',
  tenantId: 'tenant-a',
  url: 'https://siem.example/hook',
  filter: [],
  secret: 'whsec_test',
  createdAt: 0,
};
const lastAttempt: DeliveryJob = {
  endpointId: endpoint.id,
  tenantId: endpoint.tenantId,
  eventId: '00000000-0000-4000-8000-000000000001',
  body: Buffer.from('{}'),
  attempt: 3,
  dueAt: 0,
  replay: false,
  origin: { topic: 'audit', partition: 0, offset: '7' },
  lastError: 'connection refused',
};

/** The deliverer around a receiver that always fails, with a delivery state that remembers what it was told. */
function setup(opts: { alreadyRecorded: boolean; alreadySettled: boolean; disables?: boolean }) {
  const sent: string[] = [];
  const counted: AttemptKey[] = [];
  const metered: string[] = [];
  const state = {
    recordAttempt: async (_: DeliveryAttempt) => !opts.alreadyRecorded,
    settled: async () => opts.alreadySettled,
    terminalFailure: async (_: unknown, key: AttemptKey) => {
      counted.push(key);
      return opts.disables ?? false;
    },
  } as unknown as DeliveryState;
  const deliver = deliverer({
    directory: { get: () => endpoint, forget: () => undefined },
    send: async () => ({ ok: false, status: 503, error: 'status 503', latencyMs: 1 }),
    state,
    producer: {
      send: async (record) => {
        sent.push(record.topic);
        return [];
      },
    },
    retryTopics: ['retry.1', 'retry.2'],
    deadLetterTopic: 'dlq',
    policy: { delaysMs: [60_000, 300_000], jitter: 0 },
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
  return { deliver, sent, counted, metered };
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
