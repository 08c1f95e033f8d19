import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics } from '@audit/shared/contract';
import { makeEvent } from '../support/events.js';
import { topicEndOffset } from '../support/kafka-offsets.js';
import { uniqueNames } from '../support/names.js';
import { cleanUp, ingestService, testKafka } from '../support/stack.js';

const names = uniqueNames('ingestapi');
const MAX_BYTES = 256 * 1024;
const proc = ingestService(names, { INGEST_MAX_BYTES: String(MAX_BYTES) });
const kafka = testKafka();
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;

async function post(body: string, headers: Record<string, string> = {}, path = '/internal/v1/events') {
  const res = await fetch(`${proc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${names.ingestToken}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const json = (text: string) => JSON.parse(text) as { error: string; message: string; details?: unknown };
const oneEvent = () => JSON.stringify([makeEvent(names.tenant, 1)]);

beforeAll(() => proc.start());
afterAll(async () => {
  await proc.stop();
  await cleanUp(names);
});

describe('ingest API errors: clear 4xx JSON, nothing published', () => {
  let before = 0;
  beforeAll(async () => {
    before = await topicEndOffset(kafka, auditTopic);
  });

  it('401 with one identical body for a missing, malformed or wrong token', async () => {
    const answers = await Promise.all([
      post(oneEvent(), { authorization: '' }),
      post(oneEvent(), { authorization: `Basic ${names.ingestToken}` }),
      post(oneEvent(), { authorization: `Bearer ${names.ingestToken}x` }),
      post(oneEvent(), { authorization: 'Bearer' }),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.headers.get('www-authenticate')).toBe('Bearer');
      expect(a.text).toBe(answers[0]!.text);
    }
    expect(json(answers[0]!.text).error).toBe('unauthorized');
  });

  it('400 for a body that is not JSON, naming bad NDJSON lines', async () => {
    expect(json((await post('[{"tenant_id":')).text)).toMatchObject({ error: 'malformed_body' });
    const nd = `${JSON.stringify(makeEvent(names.tenant, 1))}\n{oops\n`;
    const res = await post(nd, { 'content-type': 'application/x-ndjson' });
    expect(res.status).toBe(400);
    expect(json(res.text).details).toEqual([
      { index: 1, field: '(event)', message: expect.stringMatching(/^line is not valid JSON: /) },
    ]);
  });

  it('413 over 1000 events or over the byte cap', async () => {
    // Small items, so the count is what trips, not the byte cap.
    const tooMany = await post(JSON.stringify(Array(1001).fill({})));
    expect(tooMany.status).toBe(413);
    expect(json(tooMany.text).error).toBe('payload_too_large');
    const big = await post(JSON.stringify([{ ...makeEvent(names.tenant, 1), pad: 'x'.repeat(MAX_BYTES) }]));
    expect(big.status).toBe(413);
  });

  it('415 for another content type', async () => {
    const res = await post(oneEvent(), { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(json(res.text).error).toBe('unsupported_media_type');
  });

  it('422 for a non-array, an empty batch, or invalid events listed by index and field', async () => {
    expect((await post('{}')).status).toBe(422);
    expect((await post('[]')).status).toBe(422);
    const bad = [makeEvent(names.tenant, 1), { ...makeEvent(names.tenant, 2), success: 'yes', extra: 1 }];
    const res = await post(JSON.stringify(bad));
    expect(res.status).toBe(422);
    expect(json(res.text)).toMatchObject({
      error: 'invalid_request',
      details: expect.arrayContaining([
        { index: 1, field: 'success', message: expect.any(String) },
        { index: 1, field: 'extra', message: 'unknown field' },
      ]),
    });
  });

  it('404 JSON for an unknown path', async () => {
    const res = await post(oneEvent(), {}, '/internal/v1/nope');
    expect(res.status).toBe(404);
    expect(json(res.text).error).toBe('not_found');
  });

  it('published nothing for any of the rejected requests', async () => {
    expect(await topicEndOffset(kafka, auditTopic)).toBe(before);
  });

  it('accepts NDJSON and answers 202 with the ids in input order', async () => {
    const events = [makeEvent(names.tenant, 1), makeEvent(names.tenant, 2)];
    const res = await post(events.map((e) => JSON.stringify(e)).join('\n'), {
      'content-type': 'application/x-ndjson',
    });
    expect(res.status).toBe(202);
    expect(JSON.parse(res.text)).toEqual({ accepted: 2, event_ids: events.map((e) => e.event_id) });
  });
});
