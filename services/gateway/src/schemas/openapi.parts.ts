import { z } from 'zod';
import { errorResponse, rateLimitHeaders } from './openapi.responses.js';

// Links say where an answer's ids lead (clients and stateful fuzzers follow them); each names a field of the
// answer's schema, which the unit tests check.
export const link = (operationId: string, parameter: string, pointer: string, description: string) => ({
  operationId,
  parameters: { [parameter]: `$response.body#${pointer}` },
  description,
});
export const eventLinks = (events: string) => ({
  GetFirstEvent: link('getEvent', 'event_id', `${events}/0/event_id`, 'The first event of the answer.'),
});

export const webhookIdParam = z.object({
  id: z.string().meta({ description: 'The endpoint id, `wh_` and 8 hex.' }),
});

export const webhookLinks = (endpoint: string) => ({
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

export const exportJobIdParam = z.object({
  id: z.string().meta({ description: "The job's id (a UUID)." }),
});
export const exportJobLinks = (job: string) => ({
  GetExportJob: link('getExportJob', 'id', `${job}/id`, 'This job, as it progresses.'),
  DownloadExportJob: link('downloadExportJob', 'id', `${job}/id`, "This job's file, once it succeeded."),
});

// The file as a download sends it, whole (200) or one range of it (206).
export const exportFile = {
  content: Object.fromEntries(
    ['application/gzip', 'application/vnd.apache.parquet'].map((type) => [
      type,
      { schema: z.string().meta({ format: 'binary', description: "The file's bytes." }) },
    ]),
  ),
};
export const fileHeaders = {
  'Accept-Ranges': z.literal('bytes'),
  ETag: z
    .string()
    .meta({ description: "The manifest's `sha256`, quoted: a strong validator for `If-Range`." }),
  'Content-Disposition': z
    .string()
    .meta({ description: '`attachment; filename="<id>.csv.gz"` and the like.' }),
  'Content-Length': z.int().min(0),
};
export const downloadAnswers = {
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
