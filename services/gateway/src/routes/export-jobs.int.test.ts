import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared/api-keys';
import { auditPublisher } from '@audit/shared/audit-topic';
import { allTopics, auditEventCodec, topics, type Topics } from '@audit/shared/contract';
import { exportJobCodec, exportJobsRepository } from '@audit/shared/export-jobs';
import { migratePostgres } from '@audit/shared/migrations';
import { deleteTopics, DurableProducer, ensureTopics } from '@audit/shared/platform';
import { storedKeyFor } from '@audit/shared/test-support';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { testKafka } from '../../../../test/support/stack.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { exportJobRequests } from '../adapters/export-job-requests.js';
import { exportJobStore } from '../adapters/export-job-store.js';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const names = uniqueNames('export-jobs');
const key = generateApiKey('live');
const auth = { authorization: `Bearer ${formatApiKey(key)}`, 'content-type': 'application/json' };
const BASE = '/api/v2/public/audit/exports';
const IN_FLIGHT = 3;
let db: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;
let kafka: Kafka;
let producer: DurableProducer;
let topicSet: Topics;

/** The gateway in process over the test's Postgres database and Kafka topics; keys of `tenant` only. */
function gateway(tenant: string, requestTopic = topicSet.exportJobs.name): Promise<FastifyInstance> {
  return buildApp(
    stubAppOptions({
      auth: {
        pepper: STUB_PEPPER,
        env: 'live',
        findKey: async () => storedKeyFor(key, STUB_PEPPER, { tenant_id: tenant, scopes: ['audit:export'] }),
      },
      auditLog: auditPublisher({
        producer,
        topic: topicSet.auditEvents.name,
        codec: auditEventCodec(),
        clock: Date.now,
      }),
      auditTimeoutMs: 5000,
      exportJobs: exportJobStore(pool),
      exportJobRequests: exportJobRequests(producer, requestTopic, 5000),
      exportJobLimits: { inFlight: IN_FLIGHT, maxWindowDays: 366 },
    }),
  );
}

/** The first `count` records of a topic with their keys, read by a consumer group of the test's. */
async function readRecords(topic: string, count: number) {
  const records: { key: string; value: Buffer }[] = [];
  const consumer = kafka.consumer({ groupId: `${names.id}-${topic}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        records.push({ key: String(message.key), value: message.value! });
      },
    });
    await waitFor(`${count} records on ${topic}`, async () => records.length >= count);
  } finally {
    await consumer.disconnect();
  }
  return records;
}

const body = (since: string) => JSON.stringify({ format: 'ndjson', since, action_prefix: 'phi.' });

beforeAll(async () => {
  db = await freshPostgres(names);
  await migratePostgres(db.url);
  pool = new pg.Pool({ connectionString: db.url, max: 10 });
  kafka = testKafka();
  topicSet = topics(names.topicPrefix, 1);
  await ensureTopics(kafka, allTopics(topicSet), 1);
  producer = new DurableProducer(kafka);
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await pool?.end();
  await db?.drop();
  if (topicSet)
    await deleteTopics(
      testKafka(),
      allTopics(topicSet).map((t) => t.name),
    );
});

describe('export job requests (real Postgres and Kafka)', () => {
  it('stores the job, publishes its request record and audit event, then refuses one past the limit', async () => {
    const tenant = `${names.tenant}-a`;
    const app = await gateway(tenant);
    const before = Date.now();
    const res = await app.inject({
      method: 'POST',
      url: BASE,
      headers: auth,
      payload: body('2026-01-01T00:00:00Z'),
    });
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().id as string;
    expect(res.headers.location).toBe(`${BASE}/${id}`);

    const row = await exportJobsRepository.get(pool, tenant, id);
    expect(row).toMatchObject({
      jobId: id,
      tenantId: tenant,
      format: 'ndjson',
      status: 'queued',
      filters: { action_prefix: 'phi.', since: Date.UTC(2026, 0, 1) },
      since: Date.UTC(2026, 0, 1),
      requestedBy: key.prefix,
    });
    expect(row!.until).toBe(row!.acceptedAt);
    expect(row!.acceptedAt).toBeGreaterThanOrEqual(before);

    const [request] = await readRecords(topicSet.exportJobs.name, 1);
    expect(request!.key).toBe(tenant);
    expect(exportJobCodec().decode(request!.value)).toEqual({
      jobId: id,
      tenantId: tenant,
      format: 'ndjson',
      filters: { action_prefix: 'phi.', since: Date.UTC(2026, 0, 1) },
      since: Date.UTC(2026, 0, 1),
      until: row!.until,
      acceptedAt: row!.acceptedAt,
      requestedBy: key.prefix,
    });
    const [audited] = await readRecords(topicSet.auditEvents.name, 1);
    expect(auditEventCodec().decode(audited!.value)).toMatchObject({
      tenant_id: tenant,
      action: 'audit.export',
      resource_type: 'audit_export',
      resource_id: id,
      success: true,
    });

    // The view the API answers is the row's.
    const got = await app.inject({ url: `${BASE}/${id}`, headers: auth });
    expect(got.json()).toEqual(res.json());

    for (let i = 1; i < IN_FLIGHT; i++) {
      const more = await app.inject({
        method: 'POST',
        url: BASE,
        headers: auth,
        payload: body('2026-02-01T00:00:00Z'),
      });
      expect(more.statusCode).toBe(202);
    }
    const refused = await app.inject({
      method: 'POST',
      url: BASE,
      headers: auth,
      payload: body('2026-03-01T00:00:00Z'),
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toMatchObject({ scope: 'concurrent_export_jobs', retry_after_s: 60 });
    expect(await exportJobsRepository.countInFlight(pool, tenant)).toBe(IN_FLIGHT);

    // Newest first, paged exactly; another tenant sees none of them.
    const first = (await app.inject({ url: `${BASE}?limit=2`, headers: auth })).json();
    const next = (
      await app.inject({
        url: `${BASE}?limit=2&cursor=${encodeURIComponent(first.page.next_cursor)}`,
        headers: auth,
      })
    ).json();
    const listed = [...first.exports, ...next.exports].map((j: { id: string }) => j.id);
    expect(listed).toHaveLength(IN_FLIGHT);
    expect(listed.at(-1)).toBe(id);
    expect(next.page.has_more).toBe(false);
    const stranger = await gateway(`${names.tenant}-b`);
    expect((await stranger.inject({ url: `${BASE}/${id}`, headers: auth })).statusCode).toBe(404);
    expect((await stranger.inject({ url: BASE, headers: auth })).json().exports).toEqual([]);
    await Promise.all([app.close(), stranger.close()]);
  });

  it('accepts exactly the limit of concurrent requests of one tenant', async () => {
    const tenant = `${names.tenant}-c`;
    const app = await gateway(tenant);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        app.inject({ method: 'POST', url: BASE, headers: auth, payload: body('2026-01-01T00:00:00Z') }),
      ),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([202, 202, 202, 429, 429, 429, 429, 429]);
    expect(await exportJobsRepository.countInFlight(pool, tenant)).toBe(IN_FLIGHT);
    await app.close();
  });

  it('stores nothing when Kafka does not take the request record (503)', async () => {
    const tenant = `${names.tenant}-d`;
    // A topic that does not exist (the producer creates none): every send of the record fails.
    const app = await gateway(tenant, `${names.topicPrefix}missing`);
    const res = await app.inject({
      method: 'POST',
      url: BASE,
      headers: auth,
      payload: body('2026-01-01T00:00:00Z'),
    });
    expect(res.statusCode).toBe(503);
    expect(await exportJobsRepository.list(pool, tenant, null, 10)).toEqual([]);
    await app.close();
  });
});
