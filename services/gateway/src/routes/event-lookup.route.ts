import type { FastifyInstance } from 'fastify';
import { UUID_PATTERN, toAuditEventView } from '@audit/shared/contract';
import { errorKind, NotFoundError } from '@audit/shared/platform';
import type { EventsReader } from '../adapters/events.reader.js';
import { refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { errorResponse, rateLimitHeaders } from '../schemas/openapi.responses.js';
import { auditEventSchema } from '../schemas/read-api.schema.js';
import { z } from 'zod';
import { apiRoute, type ApiRoute } from './api-route.js';
import { isNarrowed, withinNarrowing } from '../domain/narrowing.js';
import { FHIR_JSON, fhirAuditEvent } from '@audit/shared/reports';

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
    "One of the tenant's events. An id that does not exist, belongs to another tenant, lies outside a narrowed viewer token's filter or is no UUID at all is the same 404. An event a retention purge removed is a 410 (to a narrowed viewer token, whose filter its fields can no longer be checked against, a 404).",
  requestParams: {
    path: z.object({ event_id: z.string().meta({ description: 'The event id (a UUID).' }) }),
  },
  ok: {
    description:
      'The event; as an R4 AuditEvent following IHE BALP when `Accept` names `application/fhir+json` (docs/fhir.md).',
    content: {
      'application/json': { schema: auditEventSchema },
      [FHIR_JSON]: {
        schema: z
          .object({ resourceType: z.literal('AuditEvent'), id: z.string() })
          .loose()
          .meta({ description: 'An R4 AuditEvent (docs/fhir.md).' }),
      },
    },
  },
  more: {
    410: errorResponse(
      'Purged',
      "The event was purged under the tenant's retention policy (docs/retention.md): its id is known, its fields are gone.",
      undefined,
      rateLimitHeaders,
    ),
  },
};

/** FHIR's JSON when the client names it among the types it accepts (not with `q=0`); the API's JSON otherwise. */
const wantsFhir = (accept: string | undefined) =>
  accept !== undefined &&
  accept.split(',').some((entry) => {
    const [type, ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return type === FHIR_JSON && (q === undefined || Number(q.slice(2)) > 0);
  });

// Missing, another tenant's, and not a UUID at all: one identical answer
// (docs/contract.md "Status codes and error bodies").
const notFound = () => new NotFoundError('No audit event with this id.');

/** An event a retention purge removed: its id is still known (docs/retention.md "The purge"). */
class PurgedError extends errorKind(410, 'purged') {
  constructor() {
    super("This event was purged under the tenant's retention policy.");
  }
}

export function eventLookupRoute(
  app: FastifyInstance,
  events: Pick<EventsReader, 'findEvent' | 'wasStored'>,
): void {
  apiRoute<{ Params: { event_id: string }; Querystring: Record<string, unknown> }>(
    app,
    getEventRoute,
    async (request, reply) => {
      refuseUnknownQuery(request.query);
      const id = request.params.event_id;
      if (!UUID_PATTERN.test(id)) throw notFound();
      const tenant = request.principal!.tenantId;
      const eventId = id.toLowerCase();
      const find = () => events.findEvent(tenant, eventId).catch(unavailable('clickhouse'));
      let row = await find();
      const narrowing = request.principal!.viewer?.narrowedTo;
      const narrowed = narrowing !== undefined && isNarrowed(narrowing);
      if (!row && !narrowed) {
        const known = await events.wasStored(tenant, eventId).catch(unavailable('clickhouse'));
        // Read again: an event stored between the two reads has its by-id row only after its row (one insert,
        // the events table first), so a second miss is a purge, not an insert landing.
        if (known) row = await find();
        if (known && !row) throw new PurgedError();
      }
      if (!row || (narrowed && !withinNarrowing(row, narrowing))) throw notFound();
      const event = auditEventSchema.parse(toAuditEventView(row));
      if (!wantsFhir(request.headers.accept)) return event;
      return reply.type(`${FHIR_JSON}; charset=utf-8`).send(JSON.stringify(fhirAuditEvent(event)));
    },
  );
}
