import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  formatViewerToken,
  generateViewerToken,
  hashSecret,
  VIEWER_TOKEN_ID_PATTERN,
} from '@audit/shared/api-keys';
import { type Clock, formatTimestamp } from '@audit/shared/contract';
import { ForbiddenError, NotFoundError, ValidationError } from '@audit/shared/platform';
import type { ViewerTokenStore } from '../adapters/viewer-token-store.js';
import { viewerTokenAuditEvent } from '../domain/viewer-token-audit-event.js';
import { createViewerTokenBodySchema, parseViewerTokenRequest } from '../domain/viewer-token-request.js';
import { checkEmptyBody } from '../domain/webhook-request.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { json } from '../schemas/openapi.responses.js';
import {
  createdViewerTokenSchema,
  viewerTokenIdSchema,
  viewerTokenSchema,
} from '../schemas/viewer-tokens.schema.js';
import type { AuthDeps } from '../domain/authenticate.js';
import type { AuditPublisher } from '@audit/shared/audit-topic';
import { apiRoute, type ApiRoute } from './api-route.js';

export const createViewerTokenRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/viewer-tokens',
  scope: 'viewer:issue',
  statuses: [400, 403, 413, 415, 422],
  operationId: 'createViewerToken',
  tags: ['Viewer'],
  summary: 'Make a short-lived viewer token and the URL of the viewer page for it.',
  description:
    "For a tenant's backend: the token lets one browser show the trail in the viewer page (docs/viewer.md) without the API key ever reaching it. It acts for this key (its tenant, its rate limits, at most its scopes) and dies with it. Audited as `admin.viewer_token.create`.",
  requestBody: { required: false, ...json(createViewerTokenBodySchema) },
  okStatus: 201,
  ok: { description: 'The token, returned only here, and its page.', ...json(createdViewerTokenSchema) },
};

export const revokeViewerTokenRoute: ApiRoute = {
  method: 'DELETE',
  path: '/audit/viewer-tokens/{token_id}',
  scope: 'viewer:issue',
  statuses: [403, 404, 422],
  operationId: 'revokeViewerToken',
  tags: ['Viewer'],
  summary: 'Revoke a viewer token before it expires.',
  description: 'The next request with it is refused (401). Audited as `admin.viewer_token.revoke`.',
  requestParams: { path: z.object({ token_id: viewerTokenIdSchema }) },
  okStatus: 204,
  ok: { description: 'Revoked.' },
};

export const currentViewerTokenRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/viewer-tokens/current',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  narrowable: true,
  operationId: 'getCurrentViewerToken',
  tags: ['Viewer'],
  summary: 'What the viewer token of this request may do.',
  description:
    'For the viewer page: its scopes, its fixed filter and when it expires, never its secret. Asked with an API key, 404.',
  ok: { description: 'The token.', ...json(viewerTokenSchema) },
};

export interface ViewerTokenRoutesOptions {
  viewerTokens: Pick<ViewerTokenStore, 'create' | 'revoke'>;
  auth: Pick<AuthDeps, 'pepper' | 'env'>;
  /** The viewer's public origin; by default the one the request reached the gateway at. */
  viewerOrigin?: string;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  clock: Clock;
}

const noSuchToken = () => new NotFoundError('No viewer token with this id.');

export function viewerTokenRoutes(app: FastifyInstance, opts: ViewerTokenRoutesOptions): void {
  const audit = auditWriter(opts);
  const origin = (request: FastifyRequest) => opts.viewerOrigin ?? `${request.protocol}://${request.host}`;

  apiRoute(app, createViewerTokenRoute, async (request, reply) => {
    refuseUnknownQuery(request.query);
    const parsed = parseViewerTokenRequest(request.body);
    if (!parsed.ok) throw new ValidationError('Invalid viewer token request.', parsed.errors);
    const principal = request.principal!;
    const lacking = parsed.value.scopes.filter((scope) => !principal.scopes.has(scope));
    if (lacking.length > 0) {
      throw new ForbiddenError(
        `This API key lacks the scope ${lacking.join(', ')}, which it cannot pass on.`,
      );
    }
    const token = generateViewerToken(opts.auth.env);
    const expiresAt = opts.clock() + parsed.value.ttlSeconds * 1000;
    const call = apiCallOf(request);
    await opts.viewerTokens
      .create(
        {
          id: token.id,
          env: token.env,
          tenantId: principal.tenantId,
          keyPrefix: principal.prefix,
          scopes: parsed.value.scopes,
          narrowedTo: parsed.value.narrowedTo,
          frameOrigins: parsed.value.frameOrigins,
          secretHash: hashSecret(token.secret, opts.auth.pepper),
          expiresAt: new Date(expiresAt),
        },
        () => audit(viewerTokenAuditEvent(call, 'create', token.id, { ...parsed.value, expiresAt })),
      )
      .catch(unavailable('postgres'));
    const bearer = formatViewerToken(token);
    return reply.code(201).send(
      createdViewerTokenSchema.parse({
        id: token.id,
        token: bearer,
        url: `${origin(request)}/viewer/t/${token.id}#token=${bearer}`,
        expires_at: formatTimestamp(expiresAt),
        scopes: parsed.value.scopes,
        narrowed_to: parsed.value.narrowedTo,
        frame_origins: parsed.value.frameOrigins,
      }),
    );
  });

  apiRoute(app, currentViewerTokenRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const viewer = request.principal!.viewer;
    if (!viewer) throw new NotFoundError('This request was not made with a viewer token.');
    return viewerTokenSchema.parse({
      id: viewer.tokenId,
      expires_at: formatTimestamp(viewer.expiresAt),
      scopes: [...request.principal!.scopes],
      narrowed_to: viewer.narrowedTo,
    });
  });

  apiRoute<{ Params: { token_id: string } }>(app, revokeViewerTokenRoute, async (request, reply) => {
    refuseUnknownQuery(request.query);
    const errors = checkEmptyBody(request.body);
    if (errors.length > 0) throw new ValidationError('Revoke takes no body.', errors);
    const id = request.params.token_id;
    if (!VIEWER_TOKEN_ID_PATTERN.test(id)) throw noSuchToken();
    const call = apiCallOf(request);
    const revoked = await opts.viewerTokens
      .revoke(call.principal.tenantId, id, () => audit(viewerTokenAuditEvent(call, 'revoke', id)))
      .catch(unavailable('postgres'));
    if (!revoked) throw noSuchToken();
    return reply.code(204).send();
  });
}
