import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { formatApiKey, generateApiKey, type StoredApiKey } from '@audit/shared/api-keys';
import { validateBatch } from '@audit/shared/contract';
import { allowList, DEFAULT_WEBHOOK_PORTS } from '@audit/shared/webhooks';
import { storedKeyFor } from '@audit/shared/test-support';
import { makeEvent } from '../../../../test/support/events.js';
import { nonPortablePatterns, openApiContract } from '../../../../test/support/openapi-contract.js';
import { buildApp } from '../app.js';
import { STUB_PEPPER as PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';
import { endpointRecord } from '../test-support/webhook-endpoint.js';
import { eventRow } from '../test-support/event-row.js';
import { jobRequest, memoryExportJobs, succeededJob } from '../test-support/export-jobs.js';
import { API_PREFIX } from './api-prefix.js';
import { servedDocument } from '../test-support/served-document.js';

const key = generateApiKey('live');
const stored: StoredApiKey = storedKeyFor(key, PEPPER);
const auth = { authorization: `Bearer ${formatApiKey(key)}` };
const document = await servedDocument();

const row = (i: number) => eventRow(i, stored.tenant_id, 1_790_000_000_000);

// Export jobs of the key's tenant: one in each state a download answers differently.
const NOW = 1_790_000_000_000;
const succeeded = succeededJob(jobRequest(stored.tenant_id, NOW - 60_000), 100);
const queued = {
  ...succeeded,
  jobId: randomUUID(),
  status: 'queued' as const,
  manifest: null,
  expiresAt: null,
};
const expired = { ...succeeded, jobId: randomUUID(), status: 'expired' as const };
const jobs = [succeeded, queued, expired];

function app(
  overrides: {
    key?: Partial<StoredApiKey> | 'down';
    allowed?: boolean;
    rows?: number;
    inFlight?: number;
  } = {},
) {
  const rows = Array.from({ length: overrides.rows ?? 3 }, (_, i) => row(i));
  return buildApp(
    stubAppOptions({
      clock: () => NOW,
      exportJobs: memoryExportJobs(jobs),
      exportJobLimits: { inFlight: overrides.inFlight ?? 3, maxWindowDays: 366 },
      exportFiles: {
        size: async () => 100,
        read: async (_id, _format, start, end) => Readable.from([Buffer.alloc(end - start + 1)]),
      },
      takeToken: async () => ({
        allowed: overrides.allowed ?? true,
        remaining: overrides.allowed === false ? 0 : 9,
      }),
      auth: {
        pepper: PEPPER,
        env: 'live',
        findKey: async () => {
          if (overrides.key === 'down') throw new Error('ECONNREFUSED');
          return { ...stored, ...overrides.key };
        },
      },
      events: {
        findEvent: async (_t, id) => rows.find((r) => r.event_id === id) ?? null,
        wasStored: async (_t, id) => id === PURGED,
        listPage: async (_t, _f, position, want) => (position ? [] : rows.slice(0, want)),
        listKeys: async (_t, _f, position, want) =>
          position ? [] : rows.slice(0, want).map((r) => ({ ts: r.ts, event_id: r.event_id, bytes: '0' })),
      },
      integrity: integrityStub,
    }),
  );
}

// One checkpoint of a tree of 3 leaves, whose leaf 1 is the documented example event.
const checkpoint = {
  tree_size: 3,
  root_hash: Buffer.alloc(32, 7),
  made_at: 1_790_000_000_000,
  key_name: 'audit-trail.local-20261126-1a2b',
  note: 'audit-trail.local/tenants/t\n3\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\ntime 2026-09-21T13:46:40.000+00:00\n',
};
const EXAMPLE_ID = '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90';
const integrityStub = {
  ...stubAppOptions().integrity,
  checkpoints: async () => [checkpoint, { ...checkpoint, tree_size: 2 }],
  checkpoint: async (_t: string, size: number | null) => (size === null || size === 3 ? checkpoint : null),
  leaf: async (_t: string, id: string) =>
    id === '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90' ? { leaf_index: 1, leaf_hash: Buffer.alloc(32, 1) } : null,
  inclusionProof: async () => [Buffer.alloc(32, 2), Buffer.alloc(32, 3)],
  consistencyProof: async () => [],
  consistencyProofs: async (_t: string, pairs: readonly unknown[]) => pairs.map(() => [Buffer.alloc(32, 4)]),
  // Two leaves of the window: a page of one has more.
  windowLeaves: async (_t: string, _w: unknown, _s: number, _a: unknown, limit: number) =>
    [0, 1]
      .map((i) => ({
        leaf_index: i,
        event_id: EXAMPLE_ID,
        ts: 1_790_000_000_000,
        leaf_hash: Buffer.alloc(32, 1),
      }))
      .slice(0, limit),
  windowProof: async () => [Buffer.alloc(32, 5), Buffer.alloc(32, 6)],
};

type Case = [
  name: string,
  method: 'get' | 'post' | 'patch' | 'put',
  docPath: string,
  url: string,
  options?: Parameters<typeof app>[0] & { headers?: Record<string, string>; body?: string },
];

const LIST = '/audit/events';
const LOOKUP = '/audit/events/{event_id}';
// An event a retention purge removed: the by-id table still knows it.
const PURGED = '0b0b0b0b-0000-4000-8000-000000000000';
const EXPORT = '/audit/export';
const JOBS = '/audit/exports';
const JOB_PATH = '/audit/exports/{id}';
const DOWNLOAD = '/audit/exports/{id}/download';
const JOB = '{"format":"csv","since":"2026-09-01T00:00:00Z"}';
const exporter = { scopes: ['audit:export' as const] };
const webhookWriter = { scopes: ['webhooks:write' as const] };
const WEBHOOK = '/audit/webhooks/{id}';
const CHECKPOINTS = '/audit/integrity/checkpoints';
const INCLUSION = '/audit/integrity/proofs/inclusion';
const CONSISTENCY = '/audit/integrity/proofs/consistency';
const WINDOW = '/audit/integrity/proofs/window';
const WEBHOOK_TEST = '/audit/webhooks/{id}/test';
const RETENTION = '/audit/retention';
const HOLDS = '/audit/legal-holds';
const HOLD = '/audit/legal-holds/{hold_id}';
const retentionWriter = { scopes: ['retention:write' as const] };
const json = { 'content-type': 'application/json' };
const cases: Case[] = [
  ['list page with more', 'get', LIST, '/audit/events?limit=2'],
  ['list last page', 'get', LIST, '/audit/events?action=phi.read'],
  ['list 401', 'get', LIST, '/audit/events', { headers: {} }],
  ['list 403', 'get', LIST, '/audit/events', { key: { scopes: ['audit:export'] } }],
  ['list 422', 'get', LIST, '/audit/events?limit=0&bogus=1'],
  ['list 429', 'get', LIST, '/audit/events', { allowed: false }],
  ['list 503', 'get', LIST, '/audit/events', { key: 'down' }],
  ['lookup', 'get', LOOKUP, `/audit/events/${row(1).event_id}`],
  ['lookup 404', 'get', LOOKUP, '/audit/events/not-a-uuid'],
  ['lookup 410', 'get', LOOKUP, `/audit/events/${PURGED}`],
  ['lookup 422', 'get', LOOKUP, `/audit/events/${row(1).event_id}?x=1`],
  ['export json', 'post', EXPORT, '/audit/export', { headers: json, body: '{"phi_involved":true}' }],
  ['export ndjson', 'post', EXPORT, '/audit/export?format=ndjson'],
  ['export empty', 'post', EXPORT, '/audit/export', { rows: 0 }],
  ['export 400', 'post', EXPORT, '/audit/export', { headers: json, body: '{"action":' }],
  ['export 403', 'post', EXPORT, '/audit/export', { key: { scopes: ['audit:read'] } }],
  ['export 413', 'post', EXPORT, '/audit/export', { headers: json, body: `"${'x'.repeat(2 ** 21)}"` }],
  ['export 415', 'post', EXPORT, '/audit/export', { headers: { 'content-type': 'text/plain' }, body: 'a' }],
  ['export 422', 'post', EXPORT, '/audit/export?format=csv', { headers: json, body: '{"limit":5}' }],
  ['job created', 'post', JOBS, '/audit/exports', { key: exporter, headers: json, body: JOB }],
  ['job 400', 'post', JOBS, '/audit/exports', { key: exporter, headers: json, body: '{"format":' }],
  ['job 403', 'post', JOBS, '/audit/exports', { headers: json, body: JOB }],
  [
    'job 415',
    'post',
    JOBS,
    '/audit/exports',
    { key: exporter, headers: { 'content-type': 'text/plain' }, body: 'a' },
  ],
  ['job 422', 'post', JOBS, '/audit/exports', { key: exporter, headers: json, body: '{"format":"xlsx"}' }],
  ['job 429', 'post', JOBS, '/audit/exports', { key: exporter, headers: json, body: JOB, inFlight: 1 }],
  ['job 503', 'post', JOBS, '/audit/exports', { key: 'down', headers: json, body: JOB }],
  ['jobs page', 'get', JOBS, '/audit/exports?limit=2', { key: exporter }],
  ['jobs last page', 'get', JOBS, '/audit/exports', { key: exporter }],
  ['jobs 422', 'get', JOBS, '/audit/exports?cursor=x', { key: exporter }],
  ['job succeeded', 'get', JOB_PATH, `/audit/exports/${succeeded.jobId}`, { key: exporter }],
  ['job queued', 'get', JOB_PATH, `/audit/exports/${queued.jobId}`, { key: exporter }],
  ['job 404', 'get', JOB_PATH, '/audit/exports/nope', { key: exporter }],
  ['job 422', 'get', JOB_PATH, `/audit/exports/${queued.jobId}?x=1`, { key: exporter }],
  ['download 404', 'get', DOWNLOAD, `/audit/exports/${randomUUID()}/download`, { key: exporter }],
  ['download 409', 'get', DOWNLOAD, `/audit/exports/${queued.jobId}/download`, { key: exporter }],
  ['download 410', 'get', DOWNLOAD, `/audit/exports/${expired.jobId}/download`, { key: exporter }],
  [
    'download 416',
    'get',
    DOWNLOAD,
    `/audit/exports/${succeeded.jobId}/download`,
    { key: exporter, headers: { range: 'bytes=100-' } },
  ],
  [
    'webhook update 422',
    'patch',
    WEBHOOK,
    '/audit/webhooks/wh_0000abcd',
    { key: webhookWriter, headers: json, body: '{}' },
  ],
  [
    'webhook update 404',
    'patch',
    WEBHOOK,
    '/audit/webhooks/nope',
    { key: webhookWriter, headers: json, body: '{"description":"x"}' },
  ],
  [
    'webhook test 422',
    'post',
    WEBHOOK_TEST,
    '/audit/webhooks/wh_0000abcd/test',
    { key: webhookWriter, headers: json, body: '{"x":1}' },
  ],
  ['webhook test 404', 'post', WEBHOOK_TEST, '/audit/webhooks/nope/test', { key: webhookWriter }],
  ['checkpoints 200', 'get', CHECKPOINTS, '/audit/integrity/checkpoints?limit=1'],
  ['checkpoints 422', 'get', CHECKPOINTS, '/audit/integrity/checkpoints?cursor=forged'],
  ['signing keys 200', 'get', '/audit/integrity/keys', '/audit/integrity/keys'],
  ['inclusion 200', 'get', INCLUSION, `/audit/integrity/proofs/inclusion?event_id=${EXAMPLE_ID}`],
  ['inclusion 404', 'get', INCLUSION, `/audit/integrity/proofs/inclusion?event_id=${EXAMPLE_ID}&tree_size=2`],
  ['inclusion 422', 'get', INCLUSION, '/audit/integrity/proofs/inclusion?tree_size=0'],
  ['consistency 200', 'get', CONSISTENCY, '/audit/integrity/proofs/consistency?from=3&to=3'],
  ['consistency 404', 'get', CONSISTENCY, '/audit/integrity/proofs/consistency?from=1&to=3'],
  ['consistency 422', 'get', CONSISTENCY, '/audit/integrity/proofs/consistency?from=3&to=1'],
  ['window 200', 'get', WINDOW, '/audit/integrity/proofs/window?since=2026-09-01T00:00:00Z'],
  ['window page with more', 'get', WINDOW, '/audit/integrity/proofs/window?limit=1'],
  ['window 404', 'get', WINDOW, '/audit/integrity/proofs/window?tree_size=2'],
  ['retention 200', 'get', RETENTION, '/audit/retention'],
  ['retention 403', 'put', RETENTION, '/audit/retention', { headers: json, body: '{"min_days":1}' }],
  [
    'retention 422',
    'put',
    RETENTION,
    '/audit/retention',
    { key: retentionWriter, headers: json, body: '{"min_days":9,"max_days":8}' },
  ],
  ['holds 200', 'get', HOLDS, '/audit/legal-holds?status=all'],
  ['holds 422', 'get', HOLDS, '/audit/legal-holds?cursor=forged'],
  ['hold 404', 'get', HOLD, `/audit/legal-holds/${randomUUID()}`],
  ['hold 422', 'get', HOLD, '/audit/legal-holds/nope'],
  [
    'hold release 422',
    'post',
    `${HOLD}/release`,
    `/audit/legal-holds/${randomUUID()}/release`,
    { key: retentionWriter, headers: json, body: '{"reason":" "}' },
  ],
  [
    'window 422',
    'get',
    WINDOW,
    '/audit/integrity/proofs/window?since=2026-09-02T00:00:00Z&until=2026-09-01T00:00:00Z',
  ],
];

describe('the OpenAPI document', () => {
  // docs/openapi.json is the reference the docs link (npm run docs:openapi writes it); key order aside, it is
  // what the gateway serves, assembled from the routes' own descriptions.
  it('is the one of docs/openapi.json, ordering aside', async () => {
    const reference = JSON.parse(
      await readFile(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
    );
    expect(document).toEqual(reference);
  });
});

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('writes every pattern in the syntax that ECMA-262 (with or without `u`) and Python read alike', () => {
    // Generated clients compile patterns without the `u` flag, and Python's validators and fuzzers use `re`.
    expect(nonPortablePatterns(document)).toEqual([]);
  });

  it('links only to operations it has, with parameters they take, from fields its JSON answers have', () => {
    type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema };
    type Operation = {
      operationId: string;
      parameters?: { name: string; in: string }[];
      responses: Record<
        string,
        { content?: Record<string, { schema: Schema }>; links?: Record<string, Link> }
      >;
    };
    type Link = { operationId: string; parameters: Record<string, string> };
    const schemas = (document.components as { schemas: Record<string, Schema> }).schemas;
    const resolved = (schema: Schema) => (schema.$ref ? schemas[schema.$ref.split('/').pop()!]! : schema);
    const at = (schema: Schema | undefined, pointer: string) =>
      pointer
        .split('/')
        .slice(1)
        .reduce<Schema | undefined>(
          (s, step) => s && (/^\d+$/.test(step) ? resolved(s).items : resolved(s).properties?.[step]),
          schema,
        );
    const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap(
      (methods) => Object.values(methods),
    );
    const links = operations.flatMap((op) =>
      Object.values(op.responses).flatMap((res) =>
        Object.entries(res.links ?? {}).map(([name, link]) => ({ name, link, res, from: op.operationId })),
      ),
    );
    // A value comes from a field of the answer, or from a path parameter of the request.
    const sourced = (from: Operation, res: (typeof links)[number]['res'], expression: string) => {
      const param = /^\$request\.path\.(\w+)$/.exec(expression)?.[1];
      if (param) return from.parameters?.some((p) => p.name === param && p.in === 'path');
      const pointer = expression.replace(/^\$response\.body#/, '');
      return pointer !== expression && at(res.content?.['application/json']?.schema, pointer) !== undefined;
    };
    const problems = links.flatMap(({ name, link, res, from }) =>
      Object.entries(link.parameters).flatMap(([parameter, expression]) => {
        const target = operations.find((op) => op.operationId === link.operationId);
        const source = operations.find((op) => op.operationId === from)!;
        return [
          ...(target?.parameters?.some((p) => p.name === parameter)
            ? []
            : [`${from} ${name}: ${link.operationId} takes no ${parameter}`]),
          ...(sourced(source, res, expression) ? [] : [`${from} ${name}: nothing gives ${expression}`]),
        ];
      }),
    );
    expect(links.map(({ from, name }) => `${from} ${name}`).sort()).toEqual([
      'createExportJob DownloadExportJob',
      'createExportJob GetExportJob',
      'createLegalHold GetLegalHold',
      'createLegalHold ReleaseLegalHold',
      'createWebhook DeleteWebhook',
      'createWebhook DisableWebhook',
      'createWebhook ListWebhookAttempts',
      'createWebhook ReplayWebhook',
      'createWebhook RotateWebhookSecret',
      'createWebhook TestWebhook',
      'createWebhook UpdateWebhook',
      'disableWebhook DeleteWebhook',
      'exportEvents GetFirstEvent',
      'getExportJob DownloadExportJob',
      'getLegalHold ReleaseLegalHold',
      'listEvents GetFirstEvent',
      'listExportJobs GetFirstExportJob',
      'listLegalHolds GetFirstLegalHold',
      'listWebhooks DeleteWebhook',
      'listWebhooks DisableWebhook',
      'listWebhooks ListWebhookAttempts',
      'listWebhooks ReplayWebhook',
      'listWebhooks RotateWebhookSecret',
      'listWebhooks TestWebhook',
      'listWebhooks UpdateWebhook',
      'releaseLegalHold GetLegalHold',
      'replayWebhook GetWebhookReplay',
      'rotateWebhookSecret DisableWebhook',
      'updateWebhook TestWebhook',
    ]);
    expect(problems).toEqual([]);
  });

  it('is served without authentication, and documents only routes the gateway has', async () => {
    const a = await app();
    const res = await a.inject({ url: `${API_PREFIX}/openapi.json` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(document);
    for (const [path, ops] of Object.entries(document.paths as Record<string, object>)) {
      for (const method of Object.keys(ops)) {
        const url = `${API_PREFIX}${path.replace(/\{(\w+)\}/g, ':$1')}`;
        expect(a.hasRoute({ method: method.toUpperCase() as 'GET', url }), `${method} ${url}`).toBe(true);
      }
    }
  });

  it('describes every event id ingest keeps, not only those RFC 9562 checkers take for UUIDs', () => {
    // Version 0, variant 0: 8-4-4-4-12 hex that ingest accepts, and a strict `format: uuid` rejects.
    const id = '0b7e1a52-5c0e-0a8e-1f3b-2d6c1e4a7b90';
    const accepted = validateBatch([{ ...makeEvent('t', 0), event_id: id }], { clock: Date.now });
    expect(accepted.ok).toBe(true);
    const components = (
      document.components as { schemas: Record<string, { properties: Record<string, object> }> }
    ).schemas;
    const eventId = components.AuditEvent!.properties.event_id as { format?: string; pattern: string };
    expect(eventId.format).toBeUndefined();
    expect(new RegExp(eventId.pattern).test(id)).toBe(true);
  });

  it("accepts its own examples, each operation's together", async () => {
    const rotatedEndpoint = endpointRecord({
      url: 'https://siem.example.com/hooks/audit',
      previous_secret_expires_at: new Date(3_600_000),
    });
    type Schema = { example?: unknown; properties?: Record<string, Schema>; $ref?: string };
    const schemas = (document.components as { schemas: Record<string, Schema> }).schemas;
    const examples = (schema: Schema) =>
      Object.fromEntries(
        Object.entries((schema.$ref ? schemas[schema.$ref.split('/').pop()!]! : schema).properties ?? {})
          .filter(([, property]) => property.example !== undefined)
          .map(([name, property]) => [name, property.example]),
      );
    const operations = document.paths as Record<
      string,
      Record<string, { parameters?: { in: string; name: string; schema: Schema }[]; requestBody?: unknown }>
    >;
    const a = await buildApp(
      stubAppOptions({
        auth: {
          pepper: PEPPER,
          env: 'live',
          findKey: async () => ({
            ...stored,
            scopes: ['audit:read', 'audit:export', 'webhooks:write', 'viewer:issue', 'templates:write'],
          }),
        },
        viewerTokens: { ...stubAppOptions().viewerTokens, create: async (_token, announce) => announce() },
        displayTemplates: {
          ...stubAppOptions().displayTemplates,
          put: async (_tenant, change) => ({
            ...change,
            version: 1,
            changed_at: new Date(),
            changed_by: 'api_key:x',
          }),
        },
        targets: {
          allowHttp: false,
          allowed: allowList([]),
          ports: DEFAULT_WEBHOOK_PORTS,
          resolve: async () => [{ address: '93.184.216.34', family: 4 }],
        },
        integrity: integrityStub,
        webhooks: {
          ...stubAppOptions().webhooks,
          create: async () => null,
          update: async () => ({ found: true, value: rotatedEndpoint }),
          rotateSecret: async () => ({
            found: true,
            value: { endpoint: rotatedEndpoint, secret: 'ab'.repeat(32) },
          }),
          // A replay already running: the request itself was accepted (409, as creation's 409 above).
          startReplay: async () => ({ found: true, value: { inProgress: true } }),
        },
      }),
    );
    for (const [template, methods] of Object.entries(operations)) {
      const path = template.replace('{id}', rotatedEndpoint.id).replace('{selector}', 'phi.read');
      for (const [method, operation] of Object.entries(methods)) {
        const query = new URLSearchParams(
          (operation.parameters ?? [])
            .filter((p) => p.in === 'query' && p.schema.example !== undefined)
            .map((p): [string, string] => [p.name, String(p.schema.example)]),
        );
        const body = operation.requestBody as { content: Record<string, { schema: Schema }> } | undefined;
        const payload = body && examples(body.content['application/json']!.schema);
        if (query.size === 0 && (!payload || Object.keys(payload).length === 0)) continue;
        const res = await a.inject({
          method: method.toUpperCase() as 'GET',
          url: `${API_PREFIX}${path}?${query}`,
          headers: auth,
          ...(payload ? { payload } : {}),
        });
        // The stub store answers creation as a tenant at its limit (409): the request itself was accepted.
        expect(
          [200, 201, 202, 409],
          `${method} ${path}?${query} ${JSON.stringify(payload)}: ${res.body}`,
        ).toContain(res.statusCode);
      }
    }
  });

  it.each(cases)('describes the response: %s', async (_name, method, docPath, url, options = {}) => {
    const a = await app(options);
    const res = await a.inject({
      method: method.toUpperCase() as 'GET',
      url: `${API_PREFIX}${url}`,
      headers: options.headers ?? auth,
      ...(options.body === undefined ? {} : { payload: options.body }),
    });
    expect(openApiContract(document).check(method, docPath, { ...res, status: res.statusCode })).toEqual([]);
  });

  it.each([
    ['whole', {}, 200],
    ['one range', { range: 'bytes=10-19' }, 206],
  ])('describes the download of a file: %s', async (_name, headers, status) => {
    const a = await app({ key: exporter });
    const res = await a.inject({
      url: `${API_PREFIX}/audit/exports/${succeeded.jobId}/download`,
      headers: { ...auth, ...headers },
    });
    expect(res.statusCode).toBe(status);
    // The checker reads a body as JSON, which a file is not: here only status and headers are checked against
    // the document (a JSON string stands for the bytes), the bytes themselves by the route's tests.
    const observed = { ...res, status: res.statusCode, body: '""' };
    expect(openApiContract(document).check('get', DOWNLOAD, observed)).toEqual([]);
  });
});
