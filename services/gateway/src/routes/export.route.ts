import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock, toAuditEventView, type EventRow } from '@audit/shared/contract';
import { type IntegrityStore } from '@audit/shared/integrity';
import { RateLimitedError, ValidationError } from '@audit/shared/platform';
import { type EventFilters } from '@audit/shared/projection';
import type { EventsReader } from '../adapters/events.reader.js';
import { auditEventSchema, type AuditEventView, exportEnvelopeSchema } from '../schemas/read-api.schema.js';
import { exportAuditEvent } from '../domain/export-event.js';
import { exportSlots } from '../domain/export-slots.js';
import {
  EXPORT_CAP,
  exportRange,
  planExport,
  readAsk,
  readSizes,
  type SizedKey,
} from '../domain/export-plan.js';
import { capByWholeMilliseconds, type StreamOutcome } from '../domain/export-stream.js';
import {
  parseExportRequest,
  type ExportFormat,
  exportBodySchema,
  exportQuerySchema,
} from '../domain/list-query.js';
import { apiCallOf, auditWriter, unavailable } from '../plugins/public-api.plugin.js';
import { eventLinks } from '../schemas/openapi.parts.js';
import { json } from '../schemas/openapi.responses.js';
import { z } from 'zod';
import { narrowedFilters } from './narrowed-filters.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const exportEventsRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/export',
  scope: 'audit:export',
  narrowable: true,
  statuses: [400, 403, 413, 415, 422],
  operationId: 'exportEvents',
  tags: ['Events'],
  summary: 'Up to 10,000 events in list order, streamed.',
  description:
    "The events matching the list's filters, given in the body. On truncation, repeat with `until` set to the last event's timestamp. Every export answered 200 is itself recorded as an `audit.export` event.",
  requestParams: { query: exportQuerySchema },
  requestBody: { required: false, ...json(exportBodySchema) },
  ok: {
    description: 'JSON: the envelope. NDJSON: one AuditEvent per line. The cut never splits a millisecond.',
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
};

export interface ExportOptions {
  events: Pick<EventsReader, 'listPage' | 'listKeys'>;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  clock: Clock;
  /** Exports this process runs at once; past it 429 (docs/api.md "POST /audit/export"). */
  exportConcurrency: number;
  /** The tenant's checkpoints, one of which the export names (docs/integrity.md "Offline verification"). */
  integrity: Pick<IntegrityStore, 'checkpointMadeBy'>;
}

/**
 * The first EXPORT_CAP + 1 keys in list order, with their rows' sizes: all the plan needs, and a small answer
 * (the query still reads the rows' text to measure it).
 */
async function firstKeys(opts: ExportOptions, tenant: string, filters: EventFilters, now: number) {
  const keys = await opts.events.listKeys(tenant, filters, null, EXPORT_CAP + 1, now);
  return keys.map((k): SizedKey => ({ ts: Number(k.ts), id: k.event_id, bytes: Number(k.bytes) }));
}

/**
 * Rows in list order, a read at a time as `sizes` plans them (readAsk), starting with the first read already made
 * (so its failure was still a 503); a read that comes back short of what it asked ends them.
 */
async function* rows(
  opts: ExportOptions,
  tenant: string,
  filters: EventFilters,
  now: number,
  sizes: readonly number[],
  first: EventRow[],
) {
  let chunk = first;
  let asked = readAsk(sizes, 0);
  for (let i = 1; ; i++) {
    // The next read is made while this one is rendered: ClickHouse and the gateway work at once, for at most two
    // reads in memory. A read the client no longer waits for (it went away) is settled here, not thrown.
    const last = chunk.at(-1);
    const want = readAsk(sizes, i);
    const next =
      chunk.length < asked || !last
        ? null
        : opts.events.listPage(tenant, filters, { ts: Number(last.ts), id: last.event_id }, want, now);
    next?.catch(() => undefined);
    for (const row of chunk) yield auditEventSchema.parse(toAuditEventView(row));
    if (!next) return;
    chunk = await next.catch(unavailable('clickhouse'));
    asked = want;
  }
}

// The checkpoint an export names was made at least this long before it began (docs/api.md "POST /audit/export").
const CHECKPOINT_SETTLE_MS = 10_000;

// How long a response may make no progress (its client reads nothing) before it is ended, freeing its slot.
const EXPORT_STALL_MS = 60_000;

// Rendered rows are sent in pieces of about this size: a write per row costs more than rendering the row.
const PIECE = 64 * 1024;

async function* body(format: ExportFormat, events: AsyncIterable<AuditEventView>, outcome: StreamOutcome) {
  // The response begins at once (JSON) or with the first row (NDJSON), as a failure past that point can only
  // end it early; the rows after the first go out in pieces.
  if (format === 'json') yield '{"events":[';
  let piece = '';
  let first = true;
  for await (const event of events) {
    const text = JSON.stringify(event);
    piece += format === 'ndjson' ? `${text}\n` : first ? text : `,${text}`;
    if (first || piece.length >= PIECE) {
      yield piece;
      piece = '';
    }
    first = false;
  }
  if (format === 'json') piece += `],"count":${outcome.count},"truncated":${outcome.truncated}}`;
  if (piece) yield piece;
}

export function exportRoute(app: FastifyInstance, opts: ExportOptions): void {
  const audit = auditWriter(opts);
  const slots = exportSlots(opts.exportConcurrency);

  apiRoute<{ Querystring: Record<string, unknown> }>(
    app,
    exportEventsRoute,
    async (request, reply) => {
      const parsed = parseExportRequest(request.query ?? {}, request.body);
      if (!parsed.ok) throw new ValidationError('Invalid export request.', parsed.errors);
      const { format } = parsed;
      const filters = narrowedFilters(request.principal!, parsed.filters);
      const release = slots.take(request.principal!.tenantId);
      // An export refused here read nothing and sent nothing: it is not one, and writes no audit event.
      if (!release) throw new RateLimitedError('concurrent_exports', 1);
      // Held while the export does any work: given back when its body stream closes (sent, failed or abandoned),
      // or when it fails or finds its client gone before the body begins.
      try {
        const tenant = request.principal!.tenantId;
        const now = opts.clock();
        const [keys, checkpoint] = await Promise.all([
          firstKeys(opts, tenant, filters, now).catch(unavailable('clickhouse')),
          // Made a while before: its events are in ClickHouse unless the projector is that far behind. A
          // checkpoint store that cannot answer leaves the export without one rather than failing it.
          opts.integrity.checkpointMadeBy(tenant, now - CHECKPOINT_SETTLE_MS).catch(() => null),
        ]);
        const plan = planExport(keys);
        const range = exportRange(filters, plan);
        const sizes = readSizes(keys, plan.count);
        const first = range
          ? await opts.events
              .listPage(tenant, range, null, readAsk(sizes, 0), now)
              .catch(unavailable('clickhouse'))
          : [];
        // Written before any data leaves: an export without its audit event never happens.
        await audit(
          exportAuditEvent(apiCallOf(request), {
            success: true,
            exportId: randomUUID(),
            filters,
            format,
            plan,
          }),
        );
        // The envelope reports what was sent; the stream holds to the cap even if events arrive meanwhile.
        const outcome: StreamOutcome = { count: 0, truncated: plan.truncated };
        const events = range
          ? capByWholeMilliseconds(rows(opts, tenant, range, now, sizes, first), outcome)
          : (async function* () {})();
        if (reply.raw.destroyed) {
          release();
          return reply;
        }
        const stream = Readable.from(body(format, events, outcome), { objectMode: false });
        stream.once('close', release);
        // A client that stops reading would hold its slot for good: a stalled response is ended.
        reply.raw.setTimeout(EXPORT_STALL_MS, () => reply.raw.destroy());
        if (checkpoint) void reply.header('x-integrity-tree-size', String(checkpoint.tree_size));
        return reply
          .header('x-service-truncated', String(plan.truncated))
          .type(format === 'json' ? 'application/json' : 'application/x-ndjson')
          .send(stream);
      } catch (err) {
        release();
        throw err;
      }
    },
    {
      onScopeDenied: (request: FastifyRequest) =>
        audit(exportAuditEvent(apiCallOf(request), { success: false, exportId: randomUUID() })),
    },
  );
}
