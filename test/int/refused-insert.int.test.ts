import { describe, expect, it } from 'vitest';
import { ingest, makeEvent } from '../support/events.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows } from '../support/stored-events.js';
import { readDeadLetters } from '../support/dead-letters.js';
import { waitFor } from '../support/wait-for.js';

const { names, ingest: ingestProc, ch, kafka, topics: topicSet } = pipelineFixture('refused');

describe('an event ClickHouse refuses for good', () => {
  it('is dead-lettered with the reason while the rest of its batch and later batches are stored', async () => {
    // A real refusal from the real server: a column narrowed so that one event's value no longer fits
    // ("Too large value for FixedString", code 131), which no retry can change.
    await ch.command({ query: 'ALTER TABLE audit_events MODIFY COLUMN resource_id FixedString(12)' });
    const events = Array.from({ length: 50 }, (_, i) => makeEvent(names.tenant, i));
    const poison = { ...makeEvent(names.tenant, 50), resource_id: 'a-resource-id-longer-than-twelve' };
    expect((await ingest(ingestProc.url, names.ingestToken, [...events, poison])).status).toBe(202);
    await waitFor('the valid events stored', async () => (await countRows(ch, names.tenant)) === 50);
    const later = Array.from({ length: 10 }, (_, i) => makeEvent(names.tenant, 100 + i));
    expect((await ingest(ingestProc.url, names.ingestToken, later)).status).toBe(202);
    await waitFor('the later batch stored', async () => (await countRows(ch, names.tenant)) === 60);

    const letters = await readDeadLetters(
      kafka,
      topicSet.projectorDeadLetter.name,
      `${names.groupId}-reader`,
      1,
    );

    expect(letters).toHaveLength(1);
    expect(letters[0]!.headers).toMatchObject({
      'dlq.origin.topic': topicSet.auditEvents.name,
      'dlq.stage': 'store',
      'dlq.error': expect.stringMatching(/^ClickHouse refused the insert: code 131/),
    });
    // The reason names the code only: a server message may quote the row.
    expect(letters[0]!.headers['dlq.error']).not.toContain('longer-than-twelve');
    expect(letters[0]!.value!.includes(Buffer.from(poison.event_id))).toBe(true);
  });
});
