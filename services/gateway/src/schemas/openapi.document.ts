import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { exportJobBodySchema, exportJobsQuerySchema } from '../domain/export-job-request.js';
import {
  checkpointsQuerySchema,
  consistencyQuerySchema,
  windowQuerySchema,
  inclusionQuerySchema,
} from '../domain/integrity-query.js';
import { exportBodySchema, exportQuerySchema, listQuerySchema } from '../domain/list-query.js';
import { webhookAttemptsQuerySchema } from '../domain/webhook-attempts-query.js';
import {
  createWebhookBodySchema,
  rotateSecretBodySchema,
  updateWebhookBodySchema,
} from '../domain/webhook-request.js';
import { replayBodySchema } from '../domain/webhook-replay-request.js';
import { API_PREFIX } from './api-prefix.js';
import { exportJobListSchema, exportJobSchema } from './export-jobs.schema.js';
import {
  checkpointListSchema,
  consistencyProofSchema,
  inclusionProofSchema,
  integrityKeyListSchema,
  windowProofSchema,
} from './integrity.schema.js';
import { errorResponse, json, operation, rateLimitHeaders } from './openapi.responses.js';
import { auditEventSchema, exportEnvelopeSchema, listResponseSchema } from './read-api.schema.js';
import { webhookAttemptListSchema } from './webhook-attempts.schema.js';
import { webhookReplaySchema } from './webhook-replays.schema.js';
import {
  createdWebhookSchema,
  rotatedWebhookSecretSchema,
  webhookEndpointSchema,
  webhookListSchema,
  webhookTestResultSchema,
} from './webhooks.schema.js';

const webhookIdParam = z.object({
  id: z.string().meta({ description: 'The endpoint id, `wh_` and 8 hex.' }),
});

// Links say where an answer's ids lead (clients and stateful fuzzers follow them); each names a field of the
// answer's schema, which the unit tests check.
const link = (operationId: string, parameter: string, pointer: string, description: string) => ({
  operationId,
  parameters: { [parameter]: `$response.body#${pointer}` },
  description,
});
const eventLinks = (events: string) => ({
  GetFirstEvent: link('getEvent', 'event_id', `${events}/0/event_id`, 'The first event of the answer.'),
});
const webhookLinks = (endpoint: string) => ({
  UpdateWebhook: link(
    'updateWebhook',
    'id',
    `${endpoint}/id`,
    "Change this endpoint's URL, filter, label or rate.",
  ),
  TestWebhook: link('testWebhook', 'id', `${endpoint}/id`, 'Send this endpoint a signed test payload.'),
  RotateWebhookSecret: link('rotateWebhookSecret', 'id', `${endpoint}/id`, "Rotate this endpoint's secret."),
  DisableWebhook: link('disableWebhook', 'id', `${endpoint}/id`, 'Disable this endpoint.'),
  DeleteWebhook: link('deleteWebhook', 'id', `${endpoint}/id`, 'Delete this endpoint.'),
  ListWebhookAttempts: link(
    'listWebhookAttempts',
    'id',
    `${endpoint}/id`,
    "This endpoint's delivery attempts.",
  ),
  ReplayWebhook: link(
    'replayWebhook',
    'id',
    `${endpoint}/id`,
    'Send this endpoint a window of events again.',
  ),
});

const exportJobIdParam = z.object({
  id: z.string().meta({ description: "The job's id (a UUID)." }),
});
const exportJobLinks = (job: string) => ({
  GetExportJob: link('getExportJob', 'id', `${job}/id`, 'This job, as it progresses.'),
  DownloadExportJob: link('downloadExportJob', 'id', `${job}/id`, "This job's file, once it succeeded."),
});

// The file as a download sends it, whole (200) or one range of it (206).
const exportFile = {
  content: Object.fromEntries(
    ['application/gzip', 'application/vnd.apache.parquet'].map((type) => [
      type,
      { schema: z.string().meta({ format: 'binary', description: "The file's bytes." }) },
    ]),
  ),
};
const fileHeaders = {
  'Accept-Ranges': z.literal('bytes'),
  ETag: z
    .string()
    .meta({ description: "The manifest's `sha256`, quoted: a strong validator for `If-Range`." }),
  'Content-Disposition': z
    .string()
    .meta({ description: '`attachment; filename="<id>.csv.gz"` and the like.' }),
  'Content-Length': z.int().min(0),
};
const downloadAnswers = {
  206: {
    description: 'One range of the file (`Range: bytes=a-b`, `a-` or `-n`).',
    ...exportFile,
    headers: z.object({
      ...fileHeaders,
      'Content-Range': z.string().meta({ description: '`bytes a-b/size`.' }),
      ...rateLimitHeaders,
    }),
  },
  409: errorResponse(
    'ExportNotReady',
    'The job is queued, running or failed (the message says which): only a succeeded job has a file.',
    undefined,
    rateLimitHeaders,
  ),
  410: errorResponse(
    'ExportExpired',
    "The job's file has expired and was deleted.",
    undefined,
    rateLimitHeaders,
  ),
  416: errorResponse('RangeNotSatisfiable', 'The range lies outside the file.', undefined, {
    'Content-Range': z.string().meta({ description: '`bytes */size`.' }),
    ...rateLimitHeaders,
  }),
};

/** The public API's OpenAPI 3.1 document, generated from the zod schemas the routes validate with. */
export function openApiDocument() {
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Audit Trail Service public API',
        version: '2',
        description:
          "Read a tenant's audit trail (a paged list, single lookup, synchronous bulk export and export jobs for whole windows) and manage the webhook endpoints it is pushed to. Every request needs `Authorization: Bearer <API key>`; the security requirement of each operation names the scope it needs.",
      },
      servers: [{ url: API_PREFIX }],
      tags: [
        { name: 'Events', description: "The tenant's audit trail: list, lookup and export." },
        {
          name: 'Exports',
          description:
            'Export jobs: one file of a whole window, written off the request path, downloaded by range.',
        },
        { name: 'Webhooks', description: 'The endpoints the audit trail is pushed to, signed.' },
        {
          name: 'Integrity',
          description:
            "Tamper evidence (docs/integrity.md): the tenant's tree checkpoints, signed, the keys that sign them, and proofs.",
        },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key issued by an operator.' },
        },
      },
      paths: {
        '/audit/events': {
          get: operation('audit:read', [403, 422], {
            operationId: 'listEvents',
            tags: ['Events'],
            summary: 'List events, newest first (timestamp, then event_id, descending).',
            description:
              "A page of the tenant's events matching every filter given. Page with `cursor` (the previous page's `next_cursor`, with the same filters) until `has_more` is false.",
            requestParams: { query: listQuerySchema },
            ok: {
              description: 'One page.',
              ...json(listResponseSchema),
              links: eventLinks('/events'),
            },
          }),
        },
        '/audit/events/{event_id}': {
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'getEvent',
            tags: ['Events'],
            summary: 'One event by id.',
            description:
              "One of the tenant's events. An id that does not exist, belongs to another tenant or is no UUID at all is the same 404.",
            requestParams: {
              path: z.object({ event_id: z.string().meta({ description: 'The event id (a UUID).' }) }),
            },
            ok: { description: 'The event.', ...json(auditEventSchema) },
          }),
        },
        '/audit/export': {
          post: operation('audit:export', [400, 403, 413, 415, 422], {
            operationId: 'exportEvents',
            tags: ['Events'],
            summary: 'Up to 10,000 events in list order, streamed.',
            description:
              "The events matching the list's filters, given in the body. On truncation, repeat with `until` set to the last event's timestamp. Every export answered 200 is itself recorded as an `audit.export` event.",
            requestParams: { query: exportQuerySchema },
            requestBody: { required: false, ...json(exportBodySchema) },
            ok: {
              description:
                'JSON: the envelope. NDJSON: one AuditEvent per line. The cut never splits a millisecond.',
              content: {
                'application/json': { schema: exportEnvelopeSchema },
                'application/x-ndjson': { schema: auditEventSchema },
              },
              links: eventLinks('/events'),
            },
            okHeaders: {
              'X-Service-Truncated': z.enum(['true', 'false']).meta({ description: 'The cap was reached.' }),
              'X-Integrity-Tree-Size': z.string().optional().meta({
                description:
                  'The size of the tenant\'s latest checkpoint when the export began, absent while it has none: ask `getWindowProof` for the export\'s window with this `tree_size` (docs/integrity.md "Offline verification").',
              }),
            },
          }),
        },
        '/audit/exports': {
          post: operation('audit:export', [400, 403, 413, 415, 422], {
            operationId: 'createExportJob',
            tags: ['Exports'],
            summary: "Start an export job: one file of the window's events, in list order.",
            description:
              'The file holds exactly the events that paging the list with these filters would give, among those ingested by the time the job is accepted (docs/exports.md). `since` is required, and the window at most `EXPORT_JOB_MAX_WINDOW_DAYS` long (default 366). A tenant has at most `EXPORT_JOBS_IN_FLIGHT` jobs queued or running (default 3); one more is 429 with scope `concurrent_export_jobs`. Every request is recorded as an `audit.export` event.',
            requestBody: { required: true, ...json(exportJobBodySchema) },
            okStatus: 202,
            ok: { description: 'The job, queued.', ...json(exportJobSchema), links: exportJobLinks('') },
            okHeaders: { Location: z.string().meta({ description: "The job's URL." }) },
          }),
          get: operation('audit:export', [403, 422], {
            operationId: 'listExportJobs',
            tags: ['Exports'],
            summary: "The tenant's export jobs, newest first.",
            description:
              "Page with `cursor` (the previous page's `next_cursor`) until `has_more` is false. Every job is listed, expired and failed ones included.",
            requestParams: { query: exportJobsQuerySchema },
            ok: {
              description: 'One page.',
              ...json(exportJobListSchema),
              links: {
                GetFirstExportJob: link('getExportJob', 'id', '/exports/0/id', 'The first job of the page.'),
              },
            },
          }),
        },
        '/audit/exports/{id}': {
          get: operation('audit:export', [403, 404, 422], {
            operationId: 'getExportJob',
            tags: ['Exports'],
            summary: 'One export job: its status, progress and, once it succeeded, its manifest.',
            description:
              'An id that does not exist, belongs to another tenant or is no UUID at all is the same 404.',
            requestParams: { path: exportJobIdParam },
            ok: {
              description: 'The job.',
              ...json(exportJobSchema),
              links: { DownloadExportJob: exportJobLinks('').DownloadExportJob },
            },
          }),
        },
        '/audit/exports/{id}/download': {
          get: operation('audit:export', [403, 404, 422], {
            operationId: 'downloadExportJob',
            tags: ['Exports'],
            summary: "A succeeded job's file, whole or one byte range of it.",
            description:
              'Resumable: `Range` with one range answers 206, a range outside the file 416; several ranges or a malformed `Range` are ignored (200, the whole file), as is a `Range` whose `If-Range` is not the current `ETag`. The file is gzip NDJSON or CSV (`application/gzip`) or Parquet.',
            requestParams: {
              path: exportJobIdParam,
              header: z.object({
                Range: z.string().optional().meta({ description: '`bytes=a-b`, `bytes=a-` or `bytes=-n`.' }),
                'If-Range': z.string().optional().meta({
                  description: 'The `ETag` the client has: the range applies only while it matches.',
                }),
              }),
            },
            ok: { description: 'The whole file.', ...exportFile },
            okHeaders: fileHeaders,
            more: downloadAnswers,
          }),
        },
        '/audit/integrity/checkpoints': {
          get: operation('audit:read', [403, 422], {
            operationId: 'listCheckpoints',
            tags: ['Integrity'],
            summary: "The tenant's signed checkpoints, largest tree first.",
            description:
              'Each says the tenant\'s tree had this size and root, signed (docs/integrity.md "Checkpoints"); verify `note` with the keys of `/audit/integrity/keys`. Page with `cursor` until `has_more` is false.',
            requestParams: { query: checkpointsQuerySchema },
            ok: { description: 'One page.', ...json(checkpointListSchema) },
          }),
        },
        '/audit/integrity/keys': {
          get: operation('audit:read', [403, 422], {
            operationId: 'listIntegrityKeys',
            tags: ['Integrity'],
            summary: 'The public halves of every key that signs checkpoints, retired ones included.',
            description:
              'A verifier is given the `verifier_key` texts it trusts (docs/integrity.md "Signing keys").',
            ok: { description: 'The keys.', ...json(integrityKeyListSchema) },
          }),
        },
        '/audit/integrity/proofs/inclusion': {
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'getInclusionProof',
            tags: ['Integrity'],
            summary: "An event's inclusion proof in one of the tenant's checkpoints (the latest by default).",
            description:
              "RFC 9162 PATH from the event's leaf to the checkpoint's root. 404 when the id is no leaf of the tenant's tree (missing, another tenant's, not a UUID, or written so recently it is not appended yet: one answer), when no checkpoint has that size, and when the event came after the checkpoint.",
            requestParams: { query: inclusionQuerySchema },
            ok: { description: 'The proof, with the checkpoint.', ...json(inclusionProofSchema) },
          }),
        },
        '/audit/integrity/proofs/consistency': {
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'getConsistencyProof',
            tags: ['Integrity'],
            summary: "The consistency proof between two of the tenant's checkpoints.",
            description:
              "RFC 9162 PROOF that the tree of `to` leaves extends the tree of `from` leaves: nothing of the earlier was changed or removed. 404 when either size is no checkpoint of the tenant's.",
            requestParams: { query: consistencyQuerySchema },
            ok: { description: 'The proof.', ...json(consistencyProofSchema) },
          }),
        },
        '/audit/integrity/proofs/window': {
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'getWindowProof',
            tags: ['Integrity'],
            summary: "The tenant's leaves of a window of event time, proven in one of its checkpoints.",
            description:
              'Every leaf whose event time is in the window (`since` inclusive, `until` exclusive), in pages of up to 10,000, each with the hashes that make the checkpoint\'s root from its leaves: with an export of the same window, the checkpoints and the keys, the offline verifier names each altered, missing and forged row (docs/integrity.md "Window proofs"). 404 when no checkpoint has that size.',
            requestParams: { query: windowQuerySchema },
            ok: { description: 'One page.', ...json(windowProofSchema) },
          }),
        },
        '/audit/webhooks': {
          post: operation('webhooks:write', [400, 403, 409, 413, 415, 422], {
            operationId: 'createWebhook',
            tags: ['Webhooks'],
            summary: 'Register a webhook endpoint; its secret is returned only here.',
            description:
              'Matching events are pushed to the URL, signed with the secret. The host must resolve to public addresses only (docs/webhooks.md, "Target guard"); at most 100 endpoints per tenant.',
            requestBody: { required: true, ...json(createWebhookBodySchema) },
            okStatus: 201,
            ok: {
              description: 'The endpoint and its secret.',
              ...json(createdWebhookSchema),
              links: webhookLinks('/endpoint'),
            },
          }),
          get: operation('audit:read', [403, 422], {
            operationId: 'listWebhooks',
            tags: ['Webhooks'],
            summary: "The tenant's webhook endpoints, disabled ones included.",
            description: 'Oldest first, with the delivery state of each.',
            ok: {
              description: 'The endpoints.',
              ...json(webhookListSchema),
              links: webhookLinks('/endpoints/0'),
            },
          }),
        },
        '/audit/webhooks/{id}/disable': {
          post: operation('webhooks:write', [400, 403, 404, 413, 415, 422], {
            operationId: 'disableWebhook',
            tags: ['Webhooks'],
            summary: 'Disable an endpoint (idempotent).',
            description:
              'No more deliveries: pending retries are dropped, the delivery history is kept. An endpoint is never enabled again.',
            requestParams: { path: webhookIdParam },
            ok: {
              description: 'The endpoint, inactive.',
              ...json(webhookEndpointSchema),
              links: { DeleteWebhook: webhookLinks('').DeleteWebhook },
            },
          }),
        },
        '/audit/webhooks/{id}/rotate-secret': {
          post: operation('webhooks:write', [400, 403, 404, 413, 415, 422], {
            operationId: 'rotateWebhookSecret',
            tags: ['Webhooks'],
            summary: 'A new secret for an endpoint; the one it replaces keeps signing for an overlap.',
            description:
              'Until `previous_secret_expires_at` every delivery is signed by both secrets (two `v1=` in X-Service-Signature, two entries in `webhook-signature`), then by the new one only (docs/webhooks.md, "Secrets"). The new secret is returned only here.',
            requestParams: { path: webhookIdParam },
            requestBody: { required: false, ...json(rotateSecretBodySchema) },
            ok: {
              description: 'The endpoint and its new secret.',
              ...json(rotatedWebhookSecretSchema),
              links: { DisableWebhook: webhookLinks('/endpoint').DisableWebhook },
            },
          }),
        },
        '/audit/webhooks/{id}/test': {
          post: operation('webhooks:write', [400, 403, 404, 413, 415, 422], {
            operationId: 'testWebhook',
            tags: ['Webhooks'],
            summary: 'Send the endpoint a signed test payload now, and answer what came of it.',
            description:
              'The gateway POSTs a payload of type `webhook.test` (the delivery envelope, a fresh `id`, no audit event behind it), signed with the live secrets as a delivery is, through the same target guard, and answers the outcome whatever the receiver said. Not a delivery: not retried, not recorded as an attempt, outside the failure count. Written to the trail as `admin.webhook.test` before it is sent. Takes no body (an empty object is tolerated).',
            requestParams: { path: webhookIdParam },
            ok: {
              description: 'What the receiver answered, or why it did not.',
              ...json(webhookTestResultSchema),
            },
            more: {
              409: errorResponse(
                'EndpointInactive',
                'The endpoint is inactive (`endpoint_inactive`): it is sent nothing.',
                undefined,
                rateLimitHeaders,
              ),
            },
          }),
        },
        '/audit/webhooks/{id}/replay': {
          post: operation('webhooks:write', [400, 403, 404, 413, 415, 422], {
            operationId: 'replayWebhook',
            tags: ['Webhooks'],
            summary: "Send the endpoint again the tenant's events ingested in a window.",
            description:
              'Every event ingested in `[since, until)` that the endpoint\'s filter matches is delivered again, with the same `id` and body bytes as its first delivery, marked as a replay; paced by a dispatcher, which records its progress (docs/webhooks.md, "Replays"). One replay per endpoint at a time; the window ends by now and spans at most `WEBHOOK_REPLAY_MAX_DAYS` (default 31). Written to the trail as `admin.webhook.replay`.',
            requestParams: { path: webhookIdParam },
            requestBody: { required: true, ...json(replayBodySchema) },
            okStatus: 202,
            ok: {
              description: 'The replay, queued.',
              ...json(webhookReplaySchema),
              // The replay's answer holds its own id; the endpoint's is the request's.
              links: {
                GetWebhookReplay: {
                  operationId: 'getWebhookReplay',
                  parameters: { id: '$request.path.id' },
                  description: 'This replay, as it progresses.',
                },
              },
            },
            more: {
              409: errorResponse(
                'ReplayRefused',
                'The endpoint is inactive (`endpoint_inactive`), or a replay of it is queued or running (`replay_in_progress`).',
                undefined,
                rateLimitHeaders,
              ),
            },
          }),
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'getWebhookReplay',
            tags: ['Webhooks'],
            summary: "The endpoint's newest replay and how far it got.",
            description: "404 before the endpoint's first replay.",
            requestParams: { path: webhookIdParam },
            ok: { description: 'The replay.', ...json(webhookReplaySchema) },
          }),
        },
        '/audit/webhooks/{id}/attempts': {
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'listWebhookAttempts',
            tags: ['Webhooks'],
            summary:
              "An endpoint's delivery attempts, newest first (attempted_at, then the attempt's row, descending).",
            description:
              "Every attempt the dispatcher made to the endpoint, including retries and replays, kept for `WEBHOOK_ATTEMPT_RETENTION_DAYS` (default 30). `since` and `until` bound the attempt's time. Page with `cursor` (the previous page's `next_cursor`, with the same filters) until `has_more` is false. Another tenant's endpoint is 403; an id that does not exist or is malformed is 404.",
            requestParams: { path: webhookIdParam, query: webhookAttemptsQuerySchema },
            ok: { description: 'One page.', ...json(webhookAttemptListSchema) },
          }),
        },
        '/audit/webhooks/{id}': {
          patch: operation('webhooks:write', [400, 403, 404, 413, 415, 422], {
            operationId: 'updateWebhook',
            tags: ['Webhooks'],
            summary: "Change an endpoint's URL, filter, label or rate limit.",
            description:
              'The fields given change; the others stay. Each is checked as at creation, a new URL by the target guard too. Events written after the answer are delivered as the endpoint is now. An inactive endpoint can be changed and stays inactive; its secret never changes here.',
            requestParams: { path: webhookIdParam },
            requestBody: { required: true, ...json(updateWebhookBodySchema) },
            ok: {
              description: 'The endpoint as changed.',
              ...json(webhookEndpointSchema),
              links: { TestWebhook: webhookLinks('').TestWebhook },
            },
          }),
          delete: operation('webhooks:write', [403, 404, 422], {
            operationId: 'deleteWebhook',
            tags: ['Webhooks'],
            summary: 'Delete an endpoint and its delivery history.',
            description: 'The endpoint no longer counts against the limit of 100.',
            requestParams: { path: webhookIdParam },
            okStatus: 204,
            ok: { description: 'Deleted.' },
          }),
        },
      },
    },
    {
      // The spec lets responses gain fields without a version change: clients must not reject unknown ones.
      override: ({ jsonSchema, io }) => {
        if (io === 'output' && jsonSchema.additionalProperties === false)
          delete jsonSchema.additionalProperties;
        // zod bounds every integer by the safe range; on the wire that only adds noise.
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    },
  );
}
