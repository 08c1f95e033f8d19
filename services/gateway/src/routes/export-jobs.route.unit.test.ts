import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type Scope } from '@audit/shared/api-keys';
import { type ExportJob, type ExportJobRequest } from '@audit/shared/export-jobs';
import { FILTER_NAMES } from '@audit/shared/projection';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { exportJobSchema, exportJobView } from '../schemas/export-jobs.schema.js';
import { jobRequest, memoryExportJobs, succeededJob } from '../test-support/export-jobs.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';
import type { GatewayAppOptions } from '../app.js';

const key = generateApiKey('live');
const auth = { authorization: `Bearer ${formatApiKey(key)}` };
const NOW = Date.UTC(2026, 10, 21, 9, 30);
const BASE = '/api/v2/public/audit/exports';
const valid = { format: 'csv', since: '2026-11-01T00:00:00Z', action_prefix: 'phi.' };

type AuditEvent = { action: string; success: boolean; resource_id: string; details: Record<string, unknown> };

async function setup(
  opts: { scopes?: Scope[]; jobs?: ExportJob[]; overrides?: Partial<GatewayAppOptions> } = {},
) {
  const store = memoryExportJobs(opts.jobs);
  const published: AuditEvent[] = [];
  const requests: ExportJobRequest[] = [];
  const app = await buildApp(
    stubAppOptions({
      auth: {
        pepper: STUB_PEPPER,
        env: 'live',
        findKey: async () => storedKeyFor(key, STUB_PEPPER, { scopes: opts.scopes ?? ['audit:export'] }),
      },
      clock: () => NOW,
      exportJobs: store,
      auditLog: { publish: async (events) => (published.push(...(events as AuditEvent[])), []) },
      exportJobRequests: { publish: async (job) => void requests.push(job) },
      ...opts.overrides,
    }),
  );
  const post = (payload: unknown, url = BASE) =>
    app.inject({
      method: 'POST',
      url,
      headers: auth,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: auth });
  return { app, store, published, requests, post, get };
}

describe('POST /audit/exports', () => {
  it('accepts a job: 202 with the queued job and its Location, stored, announced and audited', async () => {
    const { store, published, requests, post } = await setup();
    const res = await post({ ...valid, phi_involved: true });
    expect(res.statusCode, res.body).toBe(202);
    const job = res.json();
    expect(res.headers.location).toBe(`${BASE}/${job.id}`);
    expect(job).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      status: 'queued',
      format: 'csv',
      filters: { action_prefix: 'phi.', phi_involved: true, since: '2026-11-01T00:00:00.000+00:00' },
      since: '2026-11-01T00:00:00.000+00:00',
      until: '2026-11-21T09:30:00.000+00:00',
      created_at: '2026-11-21T09:30:00.000+00:00',
      started_at: null,
      finished_at: null,
      progress: { rows_written: 0, bytes_written: 0, rows_expected: null },
      manifest: null,
      error: null,
      download_url: null,
    });
    expect(store.jobs).toHaveLength(1);
    expect(requests).toEqual([
      {
        jobId: job.id,
        tenantId: 'acme',
        format: 'csv',
        filters: { action_prefix: 'phi.', phi_involved: true, since: Date.UTC(2026, 10, 1) },
        since: Date.UTC(2026, 10, 1),
        until: NOW,
        acceptedAt: NOW,
        requestedBy: key.prefix,
      },
    ]);
    expect(published).toMatchObject([
      {
        action: 'audit.export',
        resource_type: 'audit_export',
        resource_id: job.id,
        user_id: `api_key:${key.prefix}`,
        success: true,
        details: {
          kind: 'job',
          stage: 'requested',
          format: 'csv',
          filters: {
            action_prefix: 'phi.',
            phi_involved: true,
            since: '2026-11-01T00:00:00.000+00:00',
            until: null,
          },
          until: '2026-11-21T09:30:00.000+00:00',
        },
      },
    ]);
    // The key's secret appears nowhere the job goes.
    expect(JSON.stringify([requests, published, job])).not.toContain(key.secret);
  });

  it.each([
    [{ ...valid, limit: 10 }, ['limit']],
    [{ ...valid, cursor: 'x' }, ['cursor']],
    [{ ...valid, unknown: 1, other: 2 }, ['unknown', 'other']],
    [{ format: 'csv' }, ['since']],
    [{ since: valid.since }, ['format']],
    [{ ...valid, format: 'xlsx' }, ['format']],
    [{ ...valid, since: '2025-11-01T00:00:00Z' }, ['since']],
    [{ ...valid, since: '2026-11-21T09:30:00Z' }, ['since']],
    [{ ...valid, until: '2026-10-01T00:00:00Z' }, ['since']],
    [{ ...valid, action: '../../etc/passwd' }, ['action']],
    [{ ...valid, user_id: 'x'.repeat(10_000) }, ['user_id']],
    [{ ...valid, user_id: 'a\u0000b' }, ['user_id']],
    [{ ...valid, resource_id: '\udfff' }, ['resource_id']],
    [{ ...valid, source_ip: '1.2.3.4.5' }, ['source_ip']],
    [{ ...valid, phi_involved: 'yes' }, ['phi_involved']],
    [[valid], ['(body)']],
    [undefined, ['since', 'format']],
  ])('refuses %j with 422 naming %j, and creates nothing', async (payload, fields) => {
    const { store, published, requests, post } = await setup();
    const res = await post(payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
    expect((res.json().details as { field: string }[]).map((d) => d.field).sort()).toEqual(
      [...fields].sort(),
    );
    expect([store.jobs, published, requests]).toEqual([[], [], []]);
  });

  it('refuses query parameters (format goes in the body)', async () => {
    const res = await (await setup()).post(valid, `${BASE}?format=csv`);
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([{ field: 'format', message: 'unknown parameter' }]);
  });

  it('refuses a body that is not JSON, or not sent as JSON, with its 4xx', async () => {
    const { app } = await setup();
    const send = (payload: string, type: string) =>
      app.inject({ method: 'POST', url: BASE, headers: { ...auth, 'content-type': type }, payload });
    expect((await send('{"format":', 'application/json')).statusCode).toBe(400);
    expect((await send('{"__proto__":{"x":1}}', 'application/json')).statusCode).toBe(400);
    expect((await send('format=csv', 'application/x-www-form-urlencoded')).statusCode).toBe(415);
  });

  it('answers 429 concurrent_export_jobs at the in-flight limit, counting only queued and running jobs', async () => {
    const ended = { ...succeededJob(jobRequest('acme', NOW - 5000), 10) };
    const other = jobRequest('other', NOW - 5000);
    const { store, published, post } = await setup({
      jobs: [ended, { ...ended, jobId: randomUUID(), status: 'failed' }],
      overrides: { exportJobLimits: { inFlight: 2, maxWindowDays: 366 } },
    });
    store.jobs.push(
      { ...succeededJob(other, 1), status: 'queued' },
      { ...succeededJob(other, 1), status: 'running' },
    );
    expect((await post(valid)).statusCode).toBe(202);
    expect((await post(valid)).statusCode).toBe(202);
    const refused = await post(valid);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toEqual({
      error: 'rate_limited',
      message: expect.any(String),
      scope: 'concurrent_export_jobs',
      retry_after_s: 60,
    });
    expect(store.jobs.filter((j) => j.tenantId === 'acme')).toHaveLength(4);
    expect(published).toHaveLength(2);
  });

  it('answers 503 and stores nothing when Kafka does not take the request record or the audit event', async () => {
    for (const overrides of [
      { exportJobRequests: { publish: () => Promise.reject(new Error('broker down')) } },
      { auditLog: { publish: () => Promise.reject(new Error('broker down')) } },
      { exportJobRequests: { publish: () => new Promise<void>(() => {}) }, auditTimeoutMs: 20 },
    ]) {
      const { store, post } = await setup({ overrides });
      const res = await post(valid);
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toBe('service_unavailable');
      expect(res.body).not.toMatch(/kafka|broker/i);
      expect(store.jobs).toEqual([]);
    }
  });

  it('answers 503 when Postgres fails', async () => {
    const { post } = await setup({
      overrides: {
        exportJobs: { ...memoryExportJobs(), create: () => Promise.reject(new Error('ECONNREFUSED')) },
      },
    });
    expect((await post(valid)).statusCode).toBe(503);
  });

  it('answers 403 to a key without audit:export, whatever it sent, and records the refusal', async () => {
    const { store, published, post } = await setup({ scopes: ['audit:read'] });
    const res = await post({ nonsense: true });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('This API key lacks the scope audit:export.');
    expect(store.jobs).toEqual([]);
    expect(published).toMatchObject([
      {
        action: 'audit.export',
        success: false,
        details: { kind: 'job', stage: 'requested', reason: 'missing scope audit:export' },
      },
    ]);
  });
});

describe('GET /audit/exports/{id}', () => {
  const mine = succeededJob(jobRequest('acme', NOW - 3600_000), 1234);
  const theirs = succeededJob(jobRequest('other', NOW - 3600_000), 1234);

  it("answers the tenant's job, its manifest and download URL once it succeeded", async () => {
    const res = await (await setup({ jobs: [mine] })).get(`${BASE}/${mine.jobId.toUpperCase()}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: mine.jobId,
      status: 'succeeded',
      started_at: '2026-11-21T08:30:01.000+00:00',
      finished_at: '2026-11-21T08:31:00.000+00:00',
      progress: { rows_written: 3, bytes_written: 1234, rows_expected: 3 },
      manifest: {
        row_count: 3,
        byte_size: 1234,
        sha256: 'ab'.repeat(32),
        first: { timestamp: '2026-11-21T08:29:59.999+00:00', event_id: mine.manifest!.first!.eventId },
        last: { timestamp: '2026-11-20T08:30:00.000+00:00', event_id: mine.manifest!.last!.eventId },
        expires_at: '2026-11-28T08:30:00.000+00:00',
      },
      error: null,
      download_url: `${BASE}/${mine.jobId}/download`,
    });
  });

  it('answers one identical 404 for another tenant, an unknown id and no UUID at all', async () => {
    const { get } = await setup({ jobs: [mine, theirs] });
    const answers = await Promise.all(
      [theirs.jobId, randomUUID(), 'not-a-uuid', 'x'.repeat(1000), "1' OR '1'='1", '%00'].map((id) =>
        get(`${BASE}/${encodeURIComponent(id)}`),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual([404, 404, 404, 404, 404, 404]);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    expect(answers[0]!.json()).toEqual({ error: 'not_found', message: 'No export job with this id.' });
  });

  it('refuses query parameters', async () => {
    expect((await (await setup({ jobs: [mine] })).get(`${BASE}/${mine.jobId}?x=1`)).statusCode).toBe(422);
  });

  it('states a succeeded job whose lifetime ended as expired, without a download URL', async () => {
    const lapsed = { ...mine, expiresAt: NOW };
    const job = (await (await setup({ jobs: [lapsed] })).get(`${BASE}/${mine.jobId}`)).json();
    expect(job).toMatchObject({ status: 'expired', download_url: null, manifest: { row_count: 3 } });
  });

  it('shows a failed job with its error', async () => {
    const failed: ExportJob = {
      ...mine,
      status: 'failed',
      manifest: null,
      expiresAt: null,
      error: { code: 'attempts_exhausted', message: 'The job was started 3 times without finishing.' },
    };
    const job = (await (await setup({ jobs: [failed] })).get(`${BASE}/${mine.jobId}`)).json();
    expect(job).toMatchObject({ status: 'failed', manifest: null, download_url: null, error: failed.error });
  });
});

describe('GET /audit/exports', () => {
  // Two jobs share an acceptance time: the id orders them.
  const jobs = [0, 1, 2, 3, 4, 4]
    .map((i) => jobRequest('acme', NOW - (5 - i) * 1000))
    .map((r) => succeededJob(r, 1));
  const newestFirst = [...jobs]
    .sort((a, b) => b.acceptedAt - a.acceptedAt || (a.jobId < b.jobId ? 1 : -1))
    .map((j) => j.jobId);

  it("pages the tenant's jobs newest first, exactly, without another tenant's", async () => {
    const { get } = await setup({ jobs: [...jobs, succeededJob(jobRequest('other', NOW), 1)] });
    const seen: string[] = [];
    let url = `${BASE}?limit=4`;
    const pages = [];
    for (;;) {
      const res = await get(url);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      pages.push(body.page);
      seen.push(...body.exports.map((j: { id: string }) => j.id));
      if (!body.page.has_more) break;
      url = `${BASE}?limit=4&cursor=${encodeURIComponent(body.page.next_cursor)}`;
    }
    expect(seen).toEqual(newestFirst);
    expect(pages).toEqual([
      { limit: 4, returned: 4, next_cursor: expect.any(String), has_more: true },
      { limit: 4, returned: 2, next_cursor: null, has_more: false },
    ]);
  });

  it('has no next page when the last page is exactly full, and defaults to 20', async () => {
    const { get } = await setup({ jobs });
    expect((await get(`${BASE}?limit=6`)).json().page).toEqual({
      limit: 6,
      returned: 6,
      next_cursor: null,
      has_more: false,
    });
    expect((await get(BASE)).json().page.limit).toBe(20);
  });

  it("refuses another tenant's cursor and a tampered one with 422 naming cursor", async () => {
    const { get } = await setup({ jobs });
    const cursor = (await get(`${BASE}?limit=1`)).json().page.next_cursor as string;
    const otherTenant = await buildApp(
      stubAppOptions({
        auth: {
          pepper: STUB_PEPPER,
          env: 'live',
          findKey: async () =>
            storedKeyFor(key, STUB_PEPPER, { scopes: ['audit:export'], tenant_id: 'other' }),
        },
        exportJobs: memoryExportJobs(jobs),
      }),
    );
    const refused = [
      await otherTenant.inject({ url: `${BASE}?cursor=${encodeURIComponent(cursor)}`, headers: auth }),
      await get(`${BASE}?cursor=${encodeURIComponent(`${cursor.slice(0, -2)}AA`)}`),
      await get(`${BASE}?cursor=garbage`),
    ];
    for (const res of refused) {
      expect(res.statusCode).toBe(422);
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(['cursor']);
    }
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1&limit=2', 'status=queued', 'format=csv'])(
    'refuses %s with 422',
    async (query) => {
      expect((await (await setup({ jobs })).get(`${BASE}?${query}`)).statusCode).toBe(422);
    },
  );
});

describe('the job view', () => {
  it('keeps every filter of the list, as given', () => {
    const filters = Object.fromEntries(
      FILTER_NAMES.map((name) => [
        name,
        name === 'since' || name === 'until'
          ? NOW
          : name === 'phi_involved' || name === 'success'
            ? true
            : 'v',
      ]),
    );
    const view = exportJobSchema.parse(
      exportJobView(succeededJob(jobRequest('acme', NOW, { filters }), 1), NOW),
    );
    expect(Object.keys(view.filters).sort()).toEqual([...FILTER_NAMES].sort());
  });
});
