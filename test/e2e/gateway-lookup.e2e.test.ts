import { beforeAll, describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, parseApiKey } from '@audit/shared/api-keys';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';
import { NO_PATIENT_FIELDS } from '@audit/shared/contract';

const { names, ingest: ingestProc, ch } = pipelineFixture('gwlookup');
const gw = gatewayFixture(names);
const { get } = gw;
const otherTenant = `${names.tenant}-other`;
const mine = Array.from({ length: 20 }, (_, i) => makeEvent(names.tenant, i));
const theirs = Array.from({ length: 5 }, (_, i) => makeEvent(otherTenant, i));

/** The event as the public API must render it: with the salts ingest gave it (docs/integrity.md "Version 3"). */
const view = (e: TestEvent) => ({
  ...NO_PATIENT_FIELDS,
  ...e,
  timestamp: e.timestamp.replace('Z', '+00:00'),
  fields_accessed: JSON.stringify(e.fields_accessed),
  details: JSON.stringify(e.details),
  leaf_salts: expect.stringMatching(/^[A-Za-z0-9+/]{170}[AEIMQUYcgkosw048]=$/),
});

let reader: string;

beforeAll(async () => {
  reader = await gw.mint(names.tenant, 'audit:read');
  expect((await ingest(ingestProc.url, names.ingestToken, [...mine, ...theirs])).status).toBe(202);
  await waitFor(
    'events stored',
    async () => (await countRows(ch, names.tenant)) === 21 && (await countRows(ch, otherTenant)) === 5,
  );
});

describe('GET /api/v2/public/audit/events/{event_id}', () => {
  it("returns the tenant's own event exactly as ingested, in the public shape", async () => {
    for (const event of mine.slice(0, 5)) {
      const res = await get(`/audit/events/${event.event_id}`, reader);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual(view(event));
    }
    expect((await get(`/audit/events/${mine[0]!.event_id.toUpperCase()}`, reader)).status).toBe(200);
  });

  it("answers one identical 404 for a missing id, another tenant's id, and a malformed id", async () => {
    const answers = await Promise.all(
      ['00000000-0000-4000-8000-000000000000', theirs[0]!.event_id, 'not-a-uuid', "x'%20OR%201=1--"].map(
        (id) => get(`/audit/events/${id}`, reader),
      ),
    );
    for (const a of answers) {
      expect(a.status).toBe(404);
      expect(a.text).toBe(answers[0]!.text);
    }
    expect(JSON.parse(answers[0]!.text)).toEqual({
      error: 'not_found',
      message: 'No audit event with this id.',
    });
  });

  it('answers one byte-identical 401, with the same headers, for every authentication failure', async () => {
    const live = parseApiKey(reader)!;
    const revoked = await gw.mint(names.tenant, 'audit:read');
    await gw.ops('keys', 'revoke', '--prefix', parseApiKey(revoked)!.prefix);
    const elsewhere = await gw.mint(names.tenant, 'audit:read', '203.0.113.0/24');
    const path = `/audit/events/${mine[0]!.event_id}`;
    await waitFor('revoked key refused', async () => (await get(path, revoked)).status === 401, {
      timeoutMs: 30_000,
    });

    const answers = await Promise.all([
      get(path),
      get(path, undefined, { authorization: `Basic ${reader}` }),
      get(path, 'svc_live_nothex'),
      get(path, formatApiKey({ ...live, env: 'test' })),
      get(path, formatApiKey(generateApiKey('live'))),
      get(path, formatApiKey({ ...live, secret: generateApiKey('live').secret })),
      get(path, revoked),
      get(path, elsewhere),
      get(path, elsewhere, { 'x-forwarded-for': '203.0.113.9' }),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.text).toBe(answers[0]!.text);
      expect(a.headers.get('www-authenticate')).toBe('Bearer');
      expect(a.headers.get('content-type')).toBe(answers[0]!.headers.get('content-type'));
    }
    expect(JSON.parse(answers[0]!.text)).toEqual({
      error: 'unauthorized',
      message: 'A valid bearer token is required.',
    });
  });

  it('answers 403 naming the scope for a key without audit:read', async () => {
    const exporter = await gw.mint(names.tenant, 'audit:export');
    const res = await get(`/audit/events/${mine[0]!.event_id}`, exporter);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toEqual({
      error: 'forbidden',
      message: 'This API key lacks the scope audit:read.',
    });
  });

  it('answers 422 for a query parameter the lookup does not take', async () => {
    const res = await get(`/audit/events/${mine[0]!.event_id}?tenant_id=${otherTenant}`, reader);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text).details).toEqual([{ field: 'tenant_id', message: 'unknown parameter' }]);
  });
});
