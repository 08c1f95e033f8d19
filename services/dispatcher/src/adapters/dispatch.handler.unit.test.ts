import type { KafkaMessage } from 'kafkajs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { auditEventCodec } from '@audit/shared/contract';
import type { RetentionFilter } from '@audit/shared/retention';
import { sampleRecord } from '@audit/shared/test-support';
import type { DeliveryJob } from '@audit/shared/webhooks';
import type { ActiveEndpoint } from '../domain/endpoint-index.js';
import { KeyedLanes } from '../domain/keyed-lanes.js';
import { dispatchHandler } from './dispatch.handler.js';

const codec = auditEventCodec();
const endpoint = { id: 'wh_1', tenantId: 'tenant-a' } as ActiveEndpoint;

function handler(retained: RetentionFilter, stopping = () => false) {
  const delivered: string[] = [];
  const handle = dispatchHandler({
    codec,
    matching: () => [endpoint],
    changed: async () => undefined,
    retained,
    stopping,
    lanes: new KeyedLanes(4, Date.now),
    maxWaitingPerEndpoint: 10,
    deliver: async (job: DeliveryJob) => (delivered.push(job.eventId), 'delivered' as const),
    defer: async () => undefined,
    meter: { settled: () => undefined },
    clock: Date.now,
    logger: pino({ level: 'silent' }),
  });
  const read = async (action: string) => {
    const event = sampleRecord({ action, tenant_id: 'tenant-a' });
    const pieces: number[] = [];
    const handled = await handle({
      topic: 'audit',
      partition: 0,
      message: { offset: '7', value: codec.encode(event) } as unknown as KafkaMessage,
      pause: () => () => undefined,
      begin: (n) => (pieces.push(n), () => undefined),
    });
    await new Promise((r) => setTimeout(r, 10));
    return { handled, pieces, event };
  };
  return { read, delivered };
}

describe('dispatchHandler', () => {
  it("delivers no event its tenant's retention purges removed, and finishes its record", async () => {
    const { read, delivered } = handler(async (events) => events.filter((e) => e.action !== 'phi.purged'));
    const kept = await read('phi.read');
    const purged = await read('phi.purged');
    expect([kept.handled, kept.pieces]).toEqual([true, [1]]);
    expect([purged.handled, purged.pieces]).toEqual([true, [0]]);
    expect(delivered).toEqual([kept.event.event_id]);
  });

  it('waits for the purges to be read, and leaves the record unread when it stops meanwhile', async () => {
    let failures = 2;
    const flaky = handler(async (events) => {
      if (failures-- > 0) throw new Error('ECONNREFUSED');
      return [...events];
    });
    const after = await flaky.read('phi.read');
    expect([after.handled, after.pieces]).toEqual([true, [1]]);
    expect(flaky.delivered).toEqual([after.event.event_id]);

    let stop = false;
    const down = handler(
      async () => {
        stop = true;
        throw new Error('ECONNREFUSED');
      },
      () => stop,
    );
    const stopped = await down.read('phi.read');
    expect([stopped.handled, stopped.pieces]).toEqual([false, []]);
    expect(down.delivered).toEqual([]);
  });
});
