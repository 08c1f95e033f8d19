import type { FastifyInstance } from 'fastify';
import { UUID_PATTERN, toAuditEventView } from '@audit/shared/contract';
import { NotFoundError } from '@audit/shared/platform';
import type { EventsReader } from '../adapters/events.reader.js';
import { refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { auditEventSchema } from '../schemas/read-api.schema.js';
import { json } from '../schemas/openapi.responses.js';
import { z } from 'zod';
import { apiRoute, type ApiRoute } from './api-route.js';
import { withinNarrowing } from '../domain/narrowing.js';

export const getEventRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/events/{event_id}',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  narrowable: true,
  operationId: 'getEvent',
  tags: ['Events'],
  summary: 'One event by id.',
  description:
    "One of the tenant's events. An id that does not exist, belongs to another tenant, lies outside a narrowed viewer token's filter or is no UUID at all is the same 404.",
  requestParams: {
    path: z.object({ event_id: z.string().meta({ description: 'The event id (a UUID).' }) }),
  },
  ok: { description: 'The event.', ...json(auditEventSchema) },
};

// Missing, another tenant's, and not a UUID at all: one identical answer
// (docs/contract.md "Status codes and error bodies").
const notFound = () => new NotFoundError('No audit event with this id.');

export function eventLookupRoute(app: FastifyInstance, events: Pick<EventsReader, 'findEvent'>): void {
  apiRoute<{ Params: { event_id: string }; Querystring: Record<string, unknown> }>(
    app,
    getEventRoute,
    async (request) => {
      refuseUnknownQuery(request.query);
      const id = request.params.event_id;
      if (!UUID_PATTERN.test(id)) throw notFound();
      const row = await events
        .findEvent(request.principal!.tenantId, id.toLowerCase())
        .catch(unavailable('clickhouse'));
      const narrowing = request.principal!.viewer?.narrowedTo;
      if (!row || (narrowing && !withinNarrowing(row, narrowing))) throw notFound();
      return auditEventSchema.parse(toAuditEventView(row));
    },
  );
}
