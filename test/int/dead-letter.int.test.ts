import { describe, expect, it } from 'vitest';
import { auditEventCodec } from '@audit/shared/contract';
import { DurableProducer } from '@audit/shared/platform';
import { sampleRecord } from '@audit/shared/test-support';
import { ingest, makeEvent } from '../support/events.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows } from '../support/stored-events.js';
import { readDeadLetters } from '../support/dead-letters.js';
import { waitFor } from '../support/wait-for.js';

const { names, ingest: ingestProc, ch, kafka, topics: topicSet } = pipelineFixture('dlq');

describe('poison records', () => {
  it('go to the dead-letter topic with their origin while later records keep flowing', async () => {
    const producer = new DurableProducer(kafka);
    await producer.connect();
    const invalid = auditEventCodec().encode(sampleRecord({ tenant_id: names.tenant, action: 'NOT A SLUG' }));
    const [meta] = await producer.send({
      topic: topicSet.auditEvents.name,
      acks: -1,
      messages: [
        { key: names.tenant, value: Buffer.from('{"not":"avro"}'), headers: { origin: 'test' } },
        { key: names.tenant, value: invalid },
      ],
    });
    await producer.disconnect();

    const events = Array.from({ length: 100 }, (_, i) => makeEvent(names.tenant, i));
    expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
    await waitFor('valid events stored', async () => (await countRows(ch, names.tenant)) === 100);

    const letters = await readDeadLetters(
      kafka,
      topicSet.projectorDeadLetter.name,
      `${names.groupId}-reader`,
      2,
    );

    const first = Number(meta!.baseOffset);
    expect(letters).toHaveLength(2);
    expect(letters[0]!.value?.toString()).toBe('{"not":"avro"}');
    expect(letters[0]!.headers).toMatchObject({
      origin: 'test',
      'dlq.origin.topic': topicSet.auditEvents.name,
      'dlq.origin.partition': String(meta!.partition),
      'dlq.origin.offset': String(first),
      'dlq.stage': 'decode',
      'dlq.error': expect.stringMatching(/single-object/),
    });
    expect(letters[1]!.value?.equals(invalid)).toBe(true);
    expect(letters[1]!.headers).toMatchObject({
      'dlq.origin.offset': String(first + 1),
      'dlq.stage': 'validate',
      'dlq.error': expect.stringMatching(/action/),
    });
  });
});
