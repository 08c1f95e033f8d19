import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generationTopicStates, ownTopicConfig } from '@audit/shared/audit-topic';
import { sqlIdentifier, sqlValue } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { ingest, makeEvent } from '../support/events.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { waitFor } from '../support/wait-for.js';

// The operator bounds how long Kafka keeps the audit events (docs/operations.md "Topic retention"): the test's own
// topics, ingest and projector; the deletions Kafka's retention would make are made here at once, by offset.
const fx = pipelineFixture('topicret', {}, { trees: true });
const { names, topics } = fx;
const ops = opsCli(names, () => fx.databaseUrl);
const admin = fx.kafka.admin();
beforeAll(() => admin.connect());
afterAll(() => admin.disconnect());

const DAY = 86_400_000;

interface Row {
  topic: string;
  retention_days: number | null;
  set_here: boolean;
}

async function retention(...argv: string[]): Promise<Map<string, Row>> {
  const res = await ops(['topics', 'retention', ...argv, '--json']);
  expect(res.code, res.err).toBe(0);
  return new Map(res.json<{ topics: Row[] }>().topics.map((t) => [t.topic, t]));
}

async function storedIds(tenant: string, generation: number): Promise<string[]> {
  const result = await fx.ch.query({
    query: `SELECT event_id FROM ${sqlIdentifier(projectionTables(generation).events)}
      WHERE tenant_id = ${sqlValue(tenant)} ORDER BY event_id`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ event_id: string }>()).map((r) => r.event_id);
}

describe('ops topics retention', () => {
  it('bounds every copy of the events in Kafka, keeps the bound through a growth, and goes back to for ever', async () => {
    const audit = topics.auditEvents.name;
    const chosen = [audit, topics.projectorDeadLetter.name, topics.webhookDeadLetter.name];
    const before = await retention();
    for (const t of chosen) expect(before.get(t)).toEqual({ topic: t, retention_days: null, set_here: true });
    // The topics the service bounds itself are shown, not set.
    expect(before.get(topics.webhookRetries[0]!.name)).toMatchObject({ retention_days: 7, set_here: false });
    expect(before.get(topics.exportJobs.name)).toMatchObject({ retention_days: 30, set_here: false });

    const short = await ops(['topics', 'retention', '--days', '6']);
    expect([short.code, short.err]).toEqual([2, 'error: --days: must be at least 7\n']);
    const both = await ops(['topics', 'retention', '--days', '30', '--forever']);
    expect(both.code).toBe(2);
    expect((await retention()).get(audit)!.retention_days).toBeNull();

    const set = await retention('--days', '30');
    for (const t of chosen) expect(set.get(t)!.retention_days).toBe(30);
    // The topic's other settings stay as they were.
    expect(await ownTopicConfig(admin, audit)).toMatchObject({
      'retention.ms': String(30 * DAY),
      'segment.ms': String(DAY),
      'max.message.bytes': String(4 * 1024 * 1024),
      'min.insync.replicas': '1',
    });

    // A generation a growth makes keeps the bound.
    const grown = await ops(['topics', 'grow', '--partitions', '12', '--json']);
    expect(grown.code, grown.err).toBe(0);
    const next = grown.json<{ topic: string }>().topic;
    expect((await retention()).get(next)).toEqual({ topic: next, retention_days: 30, set_here: true });

    const forever = await retention('--forever');
    for (const t of [...chosen, next]) expect(forever.get(t)!.retention_days).toBeNull();
    const own = await ownTopicConfig(admin, next);
    expect(own['retention.ms']).toBe('-1');
    expect(own['segment.ms']).toBeUndefined();
  });

  it('refuses a retention that would delete records a consumer group has not read', async () => {
    // A dead letter ten days old that a group of the test's own has not read yet.
    const dlq = topics.webhookDeadLetter.name;
    const producer = fx.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: dlq,
      messages: [{ key: 'endpoint', value: '{}', timestamp: String(Date.now() - 10 * DAY) }],
    });
    await producer.disconnect();
    const groupId = `${names.groupId}-slow`;
    await admin.setOffsets({ groupId, topic: dlq, partitions: [{ partition: 0, offset: '0' }] });

    const refused = await ops(['topics', 'retention', '--days', '7']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`${groupId} on ${dlq} partition 0: oldest unread 10 days old`);
    expect((await retention()).get(dlq)!.retention_days).toBeNull();
    expect((await retention('--days', '12')).get(dlq)!.retention_days).toBe(12);
    await admin.deleteGroups([groupId]);
    await retention('--forever');
  });

  it('refuses a replay that would miss records the retention deleted, and replays from a --since the topic still holds', async () => {
    const tenant = `${names.tenant}-r`;
    // The newest generation: the test before grew the topic.
    const audit = (await generationTopicStates(admin, topics.auditEvents.name)).at(-1)!.topic;
    const early = Array.from({ length: 30 }, (_, i) => makeEvent(tenant, i));
    expect((await ingest(fx.ingest.url, names.ingestToken, early)).status).toBe(202);
    await waitFor('the early events stored', async () => (await storedIds(tenant, 1)).length === 30);
    // Kafka's retention deletes a partition's records oldest first: here, the oldest 20 of the tenant's.
    const partition = (await admin.fetchTopicOffsets(audit)).find((p) => Number(p.high) > 0)!;
    await admin.deleteTopicRecords({
      topic: audit,
      partitions: [{ partition: partition.partition, offset: String(Number(partition.high) - 10) }],
    });
    await new Promise((r) => setTimeout(r, 1100));
    const since = Date.now();
    await new Promise((r) => setTimeout(r, 1100));
    const late = Array.from({ length: 30 }, (_, i) => makeEvent(tenant, 100 + i));
    expect((await ingest(fx.ingest.url, names.ingestToken, late)).status).toBe(202);
    await waitFor('the late events stored', async () => (await storedIds(tenant, 1)).length === 60);

    const whole = await ops(['replay', 'projection']);
    expect(whole.code).toBe(2);
    expect(whole.err).toContain(
      `${audit} partition ${partition.partition} no longer holds its records before offset`,
    );
    expect(whole.err).toContain('replay with a later --since');
    // Before the oldest record the topic holds, a deleted one may have been at --since or later.
    const early_ = await ops(['replay', 'projection', '--since', new Date(since - 60_000).toISOString()]);
    expect(early_.code).toBe(2);
    expect(early_.err).toContain('which may be at --since or later');

    // From a time the topic holds records before: the rest is copied from the live projection, nothing is lost.
    const res = await ops([
      'replay',
      'projection',
      '--since',
      new Date(since).toISOString(),
      '--drop-old-after',
      '5',
      '--json',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.json()).toMatchObject({ generation: 2, previous: 1 });
    expect(await storedIds(tenant, 2)).toEqual([...early, ...late].map((e) => e.event_id).sort());
  });
});
