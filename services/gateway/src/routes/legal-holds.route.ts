import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { errorKind, NotFoundError, ValidationError, zodFieldErrors } from '@audit/shared/platform';
import { holdView, legalHoldEvent, MAX_ACTIVE_HOLDS, type LegalHold } from '@audit/shared/retention';
import { decodeHoldsCursor, encodeHoldsCursor } from '../domain/cursor.js';
import {
  holdIdParam,
  legalHoldsQuerySchema,
  parseHoldId,
  parseLegalHoldsQuery,
} from '../domain/legal-hold-request.js';
import { apiKeyActor } from '../domain/api-key-actor.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { link } from '../schemas/openapi.parts.js';
import { errorResponse, json, rateLimitHeaders } from '../schemas/openapi.responses.js';
import {
  holdCreateBodySchema,
  holdReleaseBodySchema,
  legalHoldListSchema,
  legalHoldSchema,
} from '../schemas/retention.schema.js';
import { apiRoute, type ApiRoute } from './api-route.js';
import type { RetentionRoutesOptions } from './retention.route.js';

const holdLinks = (hold: string) => ({
  GetLegalHold: link('getLegalHold', 'hold_id', `${hold}/hold_id`, 'This hold.'),
  ReleaseLegalHold: link('releaseLegalHold', 'hold_id', `${hold}/hold_id`, 'Release this hold.'),
});

export const listLegalHoldsRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/legal-holds',
  scope: 'audit:read',
  statuses: [403, 422],
  operationId: 'listLegalHolds',
  tags: ['Retention'],
  summary: "The tenant's legal holds, newest first: those in force unless `status` says otherwise.",
  description:
    "Page with `cursor` (the previous page's `next_cursor`, with the same `status`) until `has_more` is false. Released holds are kept, with who released them, when and why.",
  requestParams: { query: legalHoldsQuerySchema },
  ok: {
    description: 'One page.',
    ...json(legalHoldListSchema),
    links: {
      GetFirstLegalHold: link('getLegalHold', 'hold_id', '/holds/0/hold_id', 'The first hold of the page.'),
    },
  },
};

export const getLegalHoldRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/legal-holds/{hold_id}',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  operationId: 'getLegalHold',
  tags: ['Retention'],
  summary: 'One legal hold, in force or released.',
  description: 'An id that is no UUID is 422; one that is no hold of the tenant, 404.',
  requestParams: { path: holdIdParam },
  ok: {
    description: 'The hold.',
    ...json(legalHoldSchema),
    links: { ReleaseLegalHold: holdLinks('').ReleaseLegalHold },
  },
};

export const createLegalHoldRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/legal-holds',
  scope: 'retention:write',
  statuses: [400, 403, 413, 415, 422],
  operationId: 'createLegalHold',
  tags: ['Retention'],
  summary:
    'Put a legal hold in force: the events of its scope are kept, whatever the policy, until it is released.',
  description: `At most ${MAX_ACTIVE_HOLDS} holds in force a tenant (409 past them). Audited as \`admin.legal_hold.create\`.`,
  requestBody: { required: true, ...json(holdCreateBodySchema) },
  okStatus: 201,
  ok: { description: 'The hold, in force.', ...json(legalHoldSchema), links: holdLinks('') },
  more: {
    409: errorResponse(
      'HoldLimitReached',
      `The tenant has ${MAX_ACTIVE_HOLDS} holds in force (\`limit_reached\`): release one before adding another.`,
      undefined,
      rateLimitHeaders,
    ),
  },
};

export const releaseLegalHoldRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/legal-holds/{hold_id}/release',
  scope: 'retention:write',
  statuses: [400, 403, 404, 413, 415, 422],
  operationId: 'releaseLegalHold',
  tags: ['Retention'],
  summary: 'Release a legal hold: it is kept, no longer in force.',
  description:
    'Audited as `admin.legal_hold.release`. A hold released already is answered as it is: its release is not changed, nor recorded again.',
  requestParams: { path: holdIdParam },
  requestBody: { required: true, ...json(holdReleaseBodySchema) },
  ok: {
    description: 'The hold, released.',
    ...json(legalHoldSchema),
    links: { GetLegalHold: holdLinks('').GetLegalHold },
  },
};

export interface LegalHoldRoutesOptions extends RetentionRoutesOptions {
  cursorSecret: string;
}

class HoldLimitError extends errorKind(409, 'limit_reached') {}

const noSuchHold = () => new NotFoundError('No legal hold with this id.');

/** The hold id a path names: a malformed one is a 422 naming it. */
function holdIdOf(request: FastifyRequest<{ Params: { hold_id: string } }>): string {
  refuseUnknownQuery(request.query);
  const parsed = parseHoldId(request.params);
  if (!parsed.ok) throw new ValidationError('Invalid legal hold id.', parsed.errors);
  return parsed.id;
}

/** A request body by its schema: no body at all as an empty one, so that each missing field is named. */
function bodyOf<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body === undefined ? {} : body);
  if (!parsed.success) throw new ValidationError(`Invalid ${what}.`, zodFieldErrors(parsed.error));
  return parsed.data;
}

/** The tenant's legal holds (docs/retention.md "Legal holds"). */
export function legalHoldRoutes(app: FastifyInstance, opts: LegalHoldRoutesOptions): void {
  const audit = auditWriter(opts);
  const audited = (request: FastifyRequest) => {
    const actor = apiKeyActor(apiCallOf(request));
    const tenant = request.principal!.tenantId;
    return { actor, announce: (hold: LegalHold) => audit(legalHoldEvent(tenant, actor, hold)) };
  };

  apiRoute<{ Querystring: Record<string, unknown> }>(app, listLegalHoldsRoute, async (request) => {
    const parsed = parseLegalHoldsQuery(request.query ?? {});
    if (!parsed.ok) throw new ValidationError('Invalid query parameters.', parsed.errors);
    const { status, limit, cursor } = parsed.query;
    const tenant = request.principal!.tenantId;
    const position =
      cursor === undefined ? null : decodeHoldsCursor(cursor, tenant, status, opts.cursorSecret);
    if (cursor !== undefined && !position) {
      throw new ValidationError('Invalid cursor.', [
        {
          field: 'cursor',
          message: 'is malformed, was altered, or was issued for another tenant, list or status',
        },
      ]);
    }
    // One hold more than the page: has_more is then exact, never a guess.
    const holds = await opts.retention
      .holds(
        tenant,
        status,
        limit + 1,
        position && { created_at: new Date(position.ts), hold_id: position.id },
      )
      .catch(unavailable('postgres'));
    const page = holds.slice(0, limit);
    const last = page.at(-1);
    const hasMore = holds.length > limit && last !== undefined;
    return legalHoldListSchema.parse({
      holds: page.map(holdView),
      page: {
        limit,
        returned: page.length,
        next_cursor: hasMore
          ? encodeHoldsCursor(
              { ts: last.created_at.getTime(), id: last.hold_id },
              tenant,
              status,
              opts.cursorSecret,
            )
          : null,
        has_more: hasMore,
      },
    });
  });

  apiRoute<{ Params: { hold_id: string } }>(app, getLegalHoldRoute, async (request) => {
    const id = holdIdOf(request);
    const hold = await opts.retention.hold(request.principal!.tenantId, id).catch(unavailable('postgres'));
    if (!hold) throw noSuchHold();
    return legalHoldSchema.parse(holdView(hold));
  });

  apiRoute(app, createLegalHoldRoute, async (request, reply) => {
    refuseUnknownQuery(request.query);
    const body = bodyOf(holdCreateBodySchema, request.body, 'legal hold');
    const { actor, announce } = audited(request);
    const created = await opts.retention
      .createHold(request.principal!.tenantId, body, actor.user_id, MAX_ACTIVE_HOLDS, announce)
      .catch(unavailable('postgres'));
    if (!created) {
      throw new HoldLimitError(
        `A tenant has at most ${MAX_ACTIVE_HOLDS} legal holds in force; release one before adding another.`,
      );
    }
    return reply.code(201).send(legalHoldSchema.parse(holdView(created)));
  });

  apiRoute<{ Params: { hold_id: string } }>(app, releaseLegalHoldRoute, async (request) => {
    const id = holdIdOf(request);
    const body = bodyOf(holdReleaseBodySchema, request.body, 'release');
    const { actor, announce } = audited(request);
    const result = await opts.retention
      .releaseHold(request.principal!.tenantId, id, { reason: body.reason, by: actor.user_id }, announce)
      .catch(unavailable('postgres'));
    if (!result) throw noSuchHold();
    return legalHoldSchema.parse(holdView(result.hold));
  });
}
