import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError, type AuditPublisher, type Clock } from '@audit/shared';
import type { EventsReader } from '../adapters/events.reader.js';
import { toAuditEventView } from '../domain/audit-event.view.js';
import type { PagePosition } from '../domain/cursor.js';
import { exportAuditEvent } from '../domain/export-event.js';
import { EXPORT_CAP, exportRange, planExport } from '../domain/export-plan.js';
import { parseExportRequest, type EventFilters, type ExportFormat } from '../domain/list-query.js';
import { unavailable } from '../plugins/public-api.plugin.js';

const CHUNK = 1000;

export interface ExportOptions {
  events: Pick<EventsReader, 'listPage' | 'listKeys'>;
  auditLog: Pick<AuditPublisher, 'publish'>;
  clock: Clock;
}

/** The first EXPORT_CAP + 1 keys in list order: small (two fields each), and all the plan needs. */
async function firstKeys(opts: ExportOptions, tenant: string, filters: EventFilters, now: number) {
  const keys: PagePosition[] = [];
  let position: PagePosition | null = null;
  while (keys.length < EXPORT_CAP + 1) {
    const want = Math.min(5 * CHUNK, EXPORT_CAP + 1 - keys.length);
    const chunk = await opts.events.listKeys(tenant, filters, position, want, now);
    keys.push(...chunk.map((k) => ({ ts: Number(k.ts), id: k.event_id })));
    if (chunk.length < want) break;
    position = keys.at(-1)!;
  }
  return keys;
}

/** Rows in list order, a chunk at a time: memory holds one chunk, whatever the export's size. */
async function* rows(opts: ExportOptions, tenant: string, filters: EventFilters, now: number) {
  let position: PagePosition | null = null;
  for (;;) {
    const chunk = await opts.events.listPage(tenant, filters, position, CHUNK, now);
    for (const row of chunk) yield toAuditEventView(row);
    if (chunk.length < CHUNK) return;
    const last = chunk.at(-1)!;
    position = { ts: Number(last.ts), id: last.event_id };
  }
}

async function* none(): AsyncGenerator<never> {}

async function* body(format: ExportFormat, events: AsyncGenerator<unknown>, truncated: boolean) {
  let count = 0;
  if (format === 'json') yield '{"events":[';
  for await (const event of events) {
    const text = JSON.stringify(event);
    yield format === 'json' ? (count === 0 ? text : `,${text}`) : `${text}\n`;
    count++;
  }
  if (format === 'json') yield `],"count":${count},"truncated":${truncated}}`;
}

export function exportRoute(app: FastifyInstance, opts: ExportOptions): void {
  app.post<{ Querystring: Record<string, unknown> }>(
    '/audit/export',
    {
      config: {
        scope: 'audit:export',
        onScopeDenied: (request: FastifyRequest) =>
          opts.auditLog
            .publish([exportAuditEvent(callOf(request), { success: false })])
            .then(() => undefined),
      },
    },
    async (request, reply) => {
      const parsed = parseExportRequest(request.query ?? {}, request.body);
      if (!parsed.ok) throw new ValidationError('Invalid export request.', parsed.errors);
      const { format, filters } = parsed;
      const tenant = request.principal!.tenantId;
      const now = opts.clock();
      const plan = planExport(await firstKeys(opts, tenant, filters, now).catch(unavailable('clickhouse')));
      const range = exportRange(filters, plan);
      // Written before any data leaves: an export without its audit event never happens.
      const event = exportAuditEvent(callOf(request), {
        success: true,
        filters,
        format,
        count: plan.count,
        truncated: plan.truncated,
      });
      await opts.auditLog.publish([event]).catch(unavailable('kafka'));
      return reply
        .header('x-service-truncated', String(plan.truncated))
        .type(format === 'json' ? 'application/json' : 'application/x-ndjson')
        .send(
          Readable.from(body(format, range ? rows(opts, tenant, range, now) : none(), plan.truncated), {
            objectMode: false,
          }),
        );
    },
  );
}

function callOf(request: FastifyRequest) {
  const userAgent = request.headers['user-agent'];
  return {
    principal: request.principal!,
    clientIp: request.clientIp,
    userAgent: typeof userAgent === 'string' ? userAgent : '',
  };
}
