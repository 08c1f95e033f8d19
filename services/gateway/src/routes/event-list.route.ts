import type { FastifyInstance } from 'fastify';
import { type Clock, toAuditEventView } from '@audit/shared/contract';
import { ValidationError } from '@audit/shared/platform';
import type { EventsReader } from '../adapters/events.reader.js';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { parseListQuery, listQuerySchema } from '../domain/list-query.js';
import { unavailable } from '../plugins/public-api.plugin.js';
import { listResponseSchema } from '../schemas/read-api.schema.js';
import { eventLinks } from '../schemas/openapi.parts.js';
import { json } from '../schemas/openapi.responses.js';
import { apiRoute, type ApiRoute } from './api-route.js';
import { narrowedFilters } from './narrowed-filters.js';

export const listEventsRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/events',
  scope: 'audit:read',
  statuses: [403, 422],
  narrowable: true,
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
};

export interface EventListOptions {
  events: Pick<EventsReader, 'listPage'>;
  cursorSecret: string;
  clock: Clock;
}

export function eventListRoute(app: FastifyInstance, opts: EventListOptions): void {
  apiRoute<{ Querystring: Record<string, unknown> }>(app, listEventsRoute, async (request) => {
    const parsed = parseListQuery(request.query ?? {});
    if (!parsed.ok) throw new ValidationError('Invalid query parameters.', parsed.errors);
    const { limit, cursor } = parsed.query;
    const filters = narrowedFilters(request.principal!, parsed.query.filters);
    const tenant = request.principal!.tenantId;
    const position = cursor === undefined ? null : decodeCursor(cursor, tenant, filters, opts.cursorSecret);
    if (cursor !== undefined && !position) {
      throw new ValidationError('Invalid cursor.', [
        {
          field: 'cursor',
          message: 'is malformed, was altered, or was issued for another tenant or other filters',
        },
      ]);
    }
    // One row more than the page: has_more is then exact, never a guess.
    const rows = await opts.events
      .listPage(tenant, filters, position, limit + 1, opts.clock())
      .catch(unavailable('clickhouse'));
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const hasMore = rows.length > limit && last !== undefined;
    return listResponseSchema.parse({
      events: page.map(toAuditEventView),
      page: {
        limit,
        returned: page.length,
        next_cursor: hasMore
          ? encodeCursor({ ts: Number(last.ts), id: last.event_id }, tenant, filters, opts.cursorSecret)
          : null,
        has_more: hasMore,
      },
    });
  });
}
