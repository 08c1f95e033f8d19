import { describe, expect, it } from 'vitest';
import { makeEvent, ingest, type TestEvent } from '../support/events.js';
import { groupCaughtUp, topicEndOffset } from '../support/kafka-offsets.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const { names, ingest: ingestProc, ch, kafka, topics } = pipelineFixture('pipeline');
const auditTopic = topics.auditEvents.name;
const sent = new Map<string, TestEvent>();

describe('ingest → Kafka → ClickHouse', () => {
  it('stores 10,000 events sent in batches exactly once, every field equal', async () => {
    const events = Array.from({ length: 10_000 }, (_, i) => makeEvent(names.tenant, i));
    for (let i = 0; i < events.length; i += 500) {
      const batch = events.slice(i, i + 500);
      const contentType = (i / 500) % 2 ? 'application/x-ndjson' : 'application/json';
      const res = await ingest(ingestProc.url, names.ingestToken, batch, contentType);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ accepted: batch.length, event_ids: batch.map((e) => e.event_id) });
      batch.forEach((e) => sent.set(e.event_id, e));
    }
    await waitFor('10,000 rows', async () => (await countRows(ch, names.tenant)) >= 10_000);
    await waitFor('projector caught up', () => groupCaughtUp(kafka, names.groupId, auditTopic));
    const stored = await storedEvents(ch, names.tenant);
    expect(stored).toHaveLength(10_000);
    const byId = new Map(stored.map((e) => [e.event_id, e]));
    expect(byId.size).toBe(10_000);
    for (const [id, event] of sent) expect(byId.get(id)).toEqual(event);
    expect(await countRows(ch, names.tenant, 'audit_event_ids')).toBe(10_000);
  });

  it('re-sending 1,000 stored events changes nothing visible', async () => {
    const again = [...sent.values()]
      .slice(0, 1000)
      .map((e) => ({ ...e, justification: 'changed on resend' }));
    const before = await topicEndOffset(kafka, auditTopic);
    const res = await ingest(ingestProc.url, names.ingestToken, again);
    expect(res.status).toBe(202);
    await waitFor(
      'records on the topic',
      async () => (await topicEndOffset(kafka, auditTopic)) === before + 1000,
    );
    await waitFor('projector caught up', () => groupCaughtUp(kafka, names.groupId, auditTopic));
    const stored = await storedEvents(ch, names.tenant);
    expect(stored).toHaveLength(10_000);
    expect(stored.filter((e) => e.justification === 'changed on resend')).toEqual([]);
  });

  it('a batch with one invalid event is rejected whole and publishes nothing', async () => {
    const before = await topicEndOffset(kafka, auditTopic);
    const batch = Array.from({ length: 50 }, (_, i) => makeEvent(names.tenant, 20_000 + i));
    batch[37] = { ...batch[37]!, tenant_id: 'no spaces allowed' };
    const res = await ingest(ingestProc.url, names.ingestToken, batch);
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ index: 37, field: 'tenant_id', message: expect.any(String) }]);
    const marker = makeEvent(names.tenant, 30_000);
    expect((await ingest(ingestProc.url, names.ingestToken, [marker])).status).toBe(202);
    expect(await topicEndOffset(kafka, auditTopic)).toBe(before + 1);
    await waitFor('marker stored', async () => (await countRows(ch, names.tenant)) === 10_001);
    const ids = new Set((await storedEvents(ch, names.tenant)).map((e) => e.event_id));
    expect(batch.filter((e) => ids.has(e.event_id))).toEqual([]);
  });

  it('stores a request far larger than one produce request whole, every byte equal', async () => {
    const big = Array.from({ length: 200 }, (_, i) => ({
      ...makeEvent(names.tenant, 40_000 + i),
      details: { blob: 'x'.repeat(30_000), seq: i },
    }));
    const res = await ingest(ingestProc.url, names.ingestToken, big);
    expect(res.status).toBe(202);
    await waitFor('large batch stored', async () => (await countRows(ch, names.tenant)) === 10_201);
    const stored = new Map((await storedEvents(ch, names.tenant)).map((e) => [e.event_id, e]));
    for (const event of big) expect(stored.get(event.event_id)).toEqual(event);
  });
});
