import { auditEventCodec } from '@audit/shared/contract';
import { type TopicRecord } from '@audit/shared/platform';
import type { RetentionFilter } from '@audit/shared/retention';
import { type ReplayProgress } from '@audit/shared/webhooks';
import { sampleRecord } from '@audit/shared/test-support';
import type { Producer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { replayTaker } from './replay-taker.js';

const codec = auditEventCodec();
const INGESTED = Date.UTC(2026, 10, 21, 10, 0, 1);
// Ten seconds pass at every look: the pace never holds a part back.
let now = 0;
const clock = () => (now += 10_000);
const target = {
  endpointId: 'wh_1',
  tenantId: 'tenant-a',
  filter: ['phi.'],
  patients: [],
  since: 0,
  until: INGESTED + 1,
};

function records(actions: string[], tenantOf = (_i: number) => target.tenantId): TopicRecord[] {
  return actions.map((action, i) => ({
    topic: 'audit',
    partition: 0,
    offset: String(100 + i),
    timestamp: INGESTED,
    key: null,
    value: codec.encode(sampleRecord({ action, ingested_at: INGESTED, tenant_id: tenantOf(i) })),
    headers: {},
  }));
}

const newProgress = (): ReplayProgress => ({
  recordsRead: 0,
  deliveriesQueued: 0,
  topic: 'audit.events.v1',
  partition: 0,
  nextOffset: 100n,
  endOffset: 200n,
});

const keepAll: RetentionFilter = async (events) => [...events];

// Ten a second: one delivery a part.
const taker = (
  producer: Pick<Producer, 'send'>,
  progress: ReplayProgress,
  check = () => {},
  retained = keepAll,
) =>
  replayTaker({
    producer,
    codec,
    firstRetryTopic: 'r1',
    perSecond: 10,
    retained,
    target,
    progress,
    check,
    clock,
  });

describe('a replay taking records', () => {
  it('moves its progress only once a part is on Kafka, deliveries, records and offset together', async () => {
    const progress = newProgress();
    const seen: ReplayProgress[] = [];
    let release = () => {};
    const producer = {
      send: async () => {
        // While a part is on its way, what a renewal would record is still the last part's end.
        seen.push({ ...progress });
        await new Promise<void>((resolve) => (release = resolve));
        return [];
      },
    };
    const take = taker(producer, progress);
    const taking = take(records(['phi.read', 'admin.x', 'phi.read', 'admin.y']), async () => {});
    for (const parts of [1, 2]) {
      while (seen.length < parts) await new Promise((r) => setImmediate(r));
      release();
    }
    await taking;
    expect(seen).toEqual([
      { ...progress, recordsRead: 0, deliveriesQueued: 0, nextOffset: 100n },
      { ...progress, recordsRead: 1, deliveriesQueued: 1, nextOffset: 101n },
    ]);
    // The records after the last part, which match nothing, are handed on too.
    expect(progress).toMatchObject({ recordsRead: 4, deliveriesQueued: 2, nextOffset: 104n });
  });

  it("reads past other tenants' records of the partition without counting them", async () => {
    const producer = { send: async () => [] };
    const progress = newProgress();
    const tenantOf = (i: number) => (i % 2 === 0 ? target.tenantId : 'tenant-b');
    await taker(producer, progress)(
      records(['phi.read', 'phi.read', 'admin.x', 'phi.read'], tenantOf),
      async () => {},
    );
    expect(progress).toMatchObject({ recordsRead: 2, deliveriesQueued: 1, nextOffset: 104n });
  });

  it("hands on no event its tenant's retention purges removed, and counts it as read", async () => {
    const sent: string[] = [];
    const producer = {
      send: async ({ messages }: { messages: { headers?: Record<string, unknown> }[] }) => {
        for (const m of messages) sent.push(String(m.headers?.['wh-event']));
        return [];
      },
    };
    const progress = newProgress();
    const given = records(['phi.read', 'phi.purged', 'phi.read']);
    const purged: RetentionFilter = async (events) => events.filter((e) => e.action !== 'phi.purged');
    await taker(producer as Pick<Producer, 'send'>, progress, () => {}, purged)(given, async () => {});
    expect(progress).toMatchObject({ recordsRead: 3, deliveriesQueued: 2, nextOffset: 103n });
    expect(sent).toHaveLength(2);
    expect(sent).not.toContain(String(codec.decode(given[1]!.value!).event_id));
  });

  it('sends nothing once its lease says stop', async () => {
    let sent = 0;
    const producer = { send: async () => ((sent += 1), []) };
    const progress = newProgress();
    const check = () => {
      throw new Error('lost');
    };
    const take = taker(producer, progress, check);
    await expect(take(records(['phi.read']), async () => {})).rejects.toThrow('lost');
    expect(sent).toBe(0);
    expect(progress.nextOffset).toBe(100n);
  });
});
