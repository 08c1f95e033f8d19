import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { secretBinding, secretBox } from '@audit/shared/webhooks';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { TEST_WEBHOOK_SECRET_KEY } from '../support/stack.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

// Every text a client controls, on every route, against the real ClickHouse, Postgres and Kafka behind them:
// whatever it holds (unpaired surrogates, NUL and other controls, quotes, backslashes, SQL, very long text),
// the answer is a JSON 2xx or 4xx, never a 5xx.
const { names, ingest: ingestProc, ch } = pipelineFixture('hostile');
const gw = gatewayFixture(names, {
  env: { RATE_LIMIT_READ_PER_MIN: '100000', RATE_LIMIT_WRITE_PER_MIN: '100000' },
});
const RUNS = 25;
const SEED = Number(process.env.HOSTILE_SEED ?? 20261125);

const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00',
    '\udbff\udfff',
    "'; DROP TABLE audit_events; --",
    "\\'",
    '\\',
    '%',
    '\r\n\t\u007f',
    '{"$gt":""}',
    'phi.',
    '2026-11-25T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '::ffff:10.0.0.1',
    'x'.repeat(5000),
  ),
);

/**
 * A query-string value that carries every UTF-16 unit as sent, unpaired surrogates included (as the three bytes
 * a WTF-8 encoder writes): encodeURIComponent refuses those, a hostile client does not.
 */
function encodeAny(text: string): string {
  let out = '';
  for (const ch of text) {
    const unit = ch.codePointAt(0)!;
    if (ch.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(ch);
  }
  return out;
}

let key: string;
// An endpoint of the key's tenant, so that changes and test sends reach Postgres, Kafka and the client. Written
// directly: this gateway opens no target range, so the API creates none. Its target (a documentation range) is
// refused at every send.
const ENDPOINT = 'wh_0000beef';

async function expectNoServerError(res: { status: number; text: string }, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBeLessThan(500);
  if (res.status >= 400) expect(JSON.parse(res.text), what).toMatchObject({ error: expect.any(String) });
}

const property = (name: string, send: (value: string) => Promise<{ status: number; text: string }>) =>
  it(name, async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (value) => {
        await expectNoServerError(await send(value), `${name} ${JSON.stringify(value).slice(0, 80)}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

beforeAll(async () => {
  key = await gw.mint(names.tenant, 'audit:read,audit:export,webhooks:write');
  const events = Array.from({ length: 20 }, (_, i) => makeEvent(names.tenant, i));
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) >= 20);
  const db = new pg.Client({ connectionString: gw.databaseUrl() });
  await db.connect();
  const sealed = secretBox(Buffer.from(TEST_WEBHOOK_SECRET_KEY, 'hex')).seal(
    'ab'.repeat(32),
    secretBinding(ENDPOINT, names.tenant),
  );
  await db.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, event_filter, description, secret_sealed)
     VALUES ($1, $2, 'https://203.0.113.9/', '{}', '', $3)`,
    [ENDPOINT, names.tenant, sealed],
  );
  await db.end();
});

const LIST_PARAMS = [
  'action',
  'action_prefix',
  'resource_type',
  'resource_id',
  'user_id',
  'source_ip',
  'phi_involved',
  'success',
  'since',
  'until',
  'limit',
  'cursor',
  'unknown_param',
];
const BODY_FIELDS = LIST_PARAMS.filter((p) => p !== 'limit' && p !== 'cursor');

describe('hostile text never causes a 5xx', () => {
  for (const param of LIST_PARAMS) {
    property(`GET /audit/events?${param}=`, (value) =>
      gw.get(`/audit/events?${param}=${encodeAny(value)}`, key),
    );
  }

  property('GET /audit/events/{event_id}', (value) => gw.get(`/audit/events/${encodeAny(value)}`, key));

  for (const field of BODY_FIELDS) {
    property(`POST /audit/export {${field}}`, (value) =>
      gw.send('POST', '/audit/export?format=ndjson', key, { [field]: value }),
    );
  }
  property('POST /audit/export?format=', (value) =>
    gw.send('POST', `/audit/export?format=${encodeAny(value)}`, key, {}),
  );

  // Export jobs: each field with a valid window and format beside it, so that the hostile one is what is judged.
  for (const field of [...BODY_FIELDS, 'format']) {
    property(`POST /audit/exports {${field}}`, (value) =>
      gw.send('POST', '/audit/exports', key, {
        since: '2026-11-01T00:00:00Z',
        format: 'csv',
        [field]: value,
      }),
    );
  }
  for (const param of ['limit', 'cursor', 'unknown_param']) {
    property(`GET /audit/exports?${param}=`, (value) =>
      gw.get(`/audit/exports?${param}=${encodeAny(value)}`, key),
    );
  }
  property('GET /audit/exports/{id}', (value) => gw.get(`/audit/exports/${encodeAny(value)}`, key));
  property('GET /audit/exports/{id}/download', (value) =>
    gw.get(`/audit/exports/${encodeAny(value)}/download`, key),
  );

  for (const param of ['limit', 'cursor', 'unknown_param']) {
    property(`GET /audit/integrity/checkpoints?${param}=`, (value) =>
      gw.get(`/audit/integrity/checkpoints?${param}=${encodeAny(value)}`, key),
    );
  }
  property('GET /audit/integrity/proofs/inclusion?event_id=', (value) =>
    gw.get(`/audit/integrity/proofs/inclusion?event_id=${encodeAny(value)}`, key),
  );
  property('GET /audit/integrity/proofs/inclusion?tree_size=', (value) =>
    gw.get(`/audit/integrity/proofs/inclusion?event_id=${randomUUID()}&tree_size=${encodeAny(value)}`, key),
  );
  property('GET /audit/integrity/proofs/consistency?from=', (value) =>
    gw.get(`/audit/integrity/proofs/consistency?from=${encodeAny(value)}&to=2`, key),
  );
  property('GET /audit/integrity/proofs/consistency?to=', (value) =>
    gw.get(`/audit/integrity/proofs/consistency?from=1&to=${encodeAny(value)}`, key),
  );
  for (const param of ['since', 'until', 'tree_size', 'limit', 'cursor', 'unknown_param']) {
    property(`GET /audit/integrity/proofs/window?${param}=`, (value) =>
      gw.get(`/audit/integrity/proofs/window?${param}=${encodeAny(value)}`, key),
    );
  }

  property('POST /audit/webhooks {url}', (value) => gw.send('POST', '/audit/webhooks', key, { url: value }));
  property('POST /audit/webhooks {url: https://<host>/}', (value) =>
    gw.send('POST', '/audit/webhooks', key, { url: `https://${value}/` }),
  );
  property('POST /audit/webhooks {description}', (value) =>
    gw.send('POST', '/audit/webhooks', key, { url: 'https://203.0.113.9/', description: value }),
  );
  property('POST /audit/webhooks {event_filter}', (value) =>
    gw.send('POST', '/audit/webhooks', key, { url: 'https://203.0.113.9/', event_filter: [value] }),
  );
  property('POST /audit/webhooks {patient_filter}', (value) =>
    gw.send('POST', '/audit/webhooks', key, { url: 'https://203.0.113.9/', patient_filter: [value] }),
  );
  property('POST /audit/webhooks/{id}/disable', (value) =>
    gw.send('POST', `/audit/webhooks/${encodeAny(value)}/disable`, key),
  );
  property('DELETE /audit/webhooks/{id}', (value) =>
    gw.send('DELETE', `/audit/webhooks/${encodeAny(value)}`, key),
  );
  property('POST /audit/webhooks/{id}/rotate-secret', (value) =>
    gw.send('POST', `/audit/webhooks/${encodeAny(value)}/rotate-secret`, key, {}),
  );
  property('POST /audit/webhooks/{id}/rotate-secret {overlap_seconds}', (value) =>
    gw.send('POST', '/audit/webhooks/wh_00000000/rotate-secret', key, { overlap_seconds: value }),
  );
  property('PATCH /audit/webhooks/{id}', (value) =>
    gw.send('PATCH', `/audit/webhooks/${encodeAny(value)}`, key, { description: 'x' }),
  );
  for (const field of ['url', 'description', 'event_filter', 'patient_filter', 'rate_limit_per_second']) {
    property(`PATCH /audit/webhooks/{id} {${field}}`, (value) =>
      gw.send('PATCH', `/audit/webhooks/${ENDPOINT}`, key, {
        [field]: field.endsWith('_filter') ? [value] : value,
      }),
    );
  }
  property('POST /audit/webhooks/{id}/test', (value) =>
    gw.send('POST', `/audit/webhooks/${encodeAny(value)}/test`, key),
  );
  property('POST /audit/webhooks/{id}/test {<field>}', (value) =>
    gw.send('POST', `/audit/webhooks/${ENDPOINT}/test`, key, { [value]: value }),
  );
  for (const field of ['since', 'until', 'unknown_field']) {
    property(`POST /audit/webhooks/{id}/replay {${field}}`, (value) =>
      gw.send('POST', '/audit/webhooks/wh_00000000/replay', key, {
        since: '2026-11-20T00:00:00Z',
        [field]: value,
      }),
    );
  }
  property('GET /audit/webhooks/{id}/replay', (value) =>
    gw.get(`/audit/webhooks/${encodeAny(value)}/replay`, key),
  );
  property('GET /audit/webhooks/{id}/attempts', (value) =>
    gw.get(`/audit/webhooks/${encodeAny(value)}/attempts`, key),
  );
  for (const param of ['event_id', 'outcome', 'since', 'until', 'limit', 'cursor', 'unknown_param']) {
    property(`GET /audit/webhooks/{id}/attempts?${param}=`, (value) =>
      gw.get(`/audit/webhooks/wh_00000000/attempts?${param}=${encodeAny(value)}`, key),
    );
  }

  for (const field of [
    'event_id',
    'timestamp',
    'tenant_id',
    'action',
    'user_id',
    'user_role',
    'resource_type',
    'resource_id',
    'source_ip',
    'user_agent',
    'justification',
  ]) {
    property(`POST /internal/v1/events {${field}}`, async (value) => {
      const event = { ...makeEvent(names.tenant, 0), event_id: undefined, [field]: value };
      const res = await fetch(`${ingestProc.url}/internal/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${names.ingestToken}`, 'content-type': 'application/json' },
        body: JSON.stringify([event]),
      });
      return { status: res.status, text: await res.text() };
    });
  }
});
