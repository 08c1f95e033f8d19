import type { FastifyInstance } from 'fastify';
import { UUID_PATTERN, toAuditEventView } from '@audit/shared/contract';
import { NotFoundError } from '@audit/shared/platform';
import type { EventsReader } from '../adapters/events.reader.js';
import { refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { auditEventSchema } from '../schemas/read-api.schema.js';

// Missing, another tenant's, and not a UUID at all: one identical answer
// (docs/contract.md "Status codes and error bodies").
const notFound = () => new NotFoundError('No audit event with this id.');

export function eventLookupRoute(app: FastifyInstance, events: Pick<EventsReader, 'findEvent'>): void {
  app.get<{ Params: { event_id: string }; Querystring: Record<string, unknown> }>(
    '/audit/events/:event_id',
    { config: { scope: 'audit:read' } },
    async (request) => {
      refuseUnknownQuery(request.query);
      const id = request.params.event_id;
      if (!UUID_PATTERN.test(id)) throw notFound();
      const row = await events
        .findEvent(request.principal!.tenantId, id.toLowerCase())
        .catch(unavailable('clickhouse'));
      if (!row) throw notFound();
      return auditEventSchema.parse(toAuditEventView(row));
    },
  );
}
