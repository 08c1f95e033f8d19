import type { FastifyInstance } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import { NotFoundError, RateLimitedError, ValidationError } from '@audit/shared/platform';
import type { WebhookStore } from '../adapters/webhook-store.js';
import { webhookAuditEvent } from '../domain/webhook-audit-event.js';
import { EndpointInactiveError, ReplayInProgressError } from '../domain/webhook-errors.js';
import { parseReplayRequest, replayBodySchema } from '../domain/webhook-replay-request.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { webhookReplaySchema, webhookReplayView } from '../schemas/webhook-replays.schema.js';
import { endpointIdOf, endpointOf } from './webhooks.route.js';
import { webhookIdParam } from '../schemas/openapi.parts.js';
import { errorResponse, json, rateLimitHeaders } from '../schemas/openapi.responses.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const replayWebhookRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/webhooks/{id}/replay',
  scope: 'webhooks:write',
  statuses: [400, 403, 404, 413, 415, 422],
  operationId: 'replayWebhook',
  tags: ['Webhooks'],
  summary: "Send the endpoint again the tenant's events ingested in a window.",
  description:
    'Every event ingested in `[since, until)` that the endpoint\'s filters match (its action and its patient, as the live deliveries match them) is delivered again, with the same `id` and body bytes as its first delivery, marked as a replay; paced by a dispatcher, which records its progress (docs/webhooks.md, "Replays"). One replay per endpoint at a time, and at most `WEBHOOK_REPLAYS_PER_TENANT` (default 4) queued or running per tenant: one more is 429 with scope `concurrent_replays`. The window ends by now and spans at most `WEBHOOK_REPLAY_MAX_DAYS` (default 31); what lies before the endpoint was created is never read. Written to the trail as `admin.webhook.replay`.',
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
};

export const getWebhookReplayRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/webhooks/{id}/replay',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  operationId: 'getWebhookReplay',
  tags: ['Webhooks'],
  summary: "The endpoint's newest replay and how far it got.",
  description: "404 before the endpoint's first replay.",
  requestParams: { path: webhookIdParam },
  ok: { description: 'The replay.', ...json(webhookReplaySchema) },
};

/** A tenant at its cap waits for one of its replays to end: the client is told to wait a minute. */
const REPLAYS_RETRY_AFTER_S = 60;

export interface WebhookReplayOptions {
  webhooks: Pick<WebhookStore, 'startReplay' | 'latestReplay'>;
  /**
   * The longest window a replay may cover, in days (WEBHOOK_REPLAY_MAX_DAYS), and the replays a tenant may have
   * queued or running (WEBHOOK_REPLAYS_PER_TENANT).
   */
  replayLimits: { maxDays: number; perTenant: number };
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  clock: Clock;
}

/** The owner's replays of an endpoint (docs/webhooks.md "Replays"): one asked for, and the newest one's progress. */
export function webhookReplayRoute(app: FastifyInstance, opts: WebhookReplayOptions): void {
  const audit = auditWriter(opts);

  apiRoute<{ Params: { id: string } }>(app, replayWebhookRoute, async (request, reply) => {
    refuseUnknownQuery(request.query);
    const id = endpointIdOf(request.params.id);
    const parsed = parseReplayRequest(request.body, {
      now: opts.clock(),
      maxDays: opts.replayLimits.maxDays,
    });
    if (!parsed.ok) throw new ValidationError('Invalid replay.', parsed.errors);
    const window = { since: parsed.since, until: parsed.until };
    const call = apiCallOf(request);
    const started = endpointOf(
      await opts.webhooks
        .startReplay(
          call.principal.tenantId,
          id,
          window,
          { requestedBy: `api_key:${call.principal.prefix}`, perTenant: opts.replayLimits.perTenant },
          (endpoint, replay) => audit(webhookAuditEvent(call, 'replay', endpoint, { replay })),
        )
        .catch(unavailable('postgres')),
    );
    if ('inactive' in started) {
      throw new EndpointInactiveError(
        'This webhook endpoint is inactive: it is sent nothing, replays included.',
      );
    }
    if ('tooMany' in started) throw new RateLimitedError('concurrent_replays', REPLAYS_RETRY_AFTER_S);
    if ('inProgress' in started) {
      throw new ReplayInProgressError(
        'This endpoint has a replay queued or running; ask again once it has ended.',
      );
    }
    return reply.code(202).send(webhookReplaySchema.parse(webhookReplayView(started.replay)));
  });

  apiRoute<{ Params: { id: string } }>(app, getWebhookReplayRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const id = endpointIdOf(request.params.id);
    const replay = endpointOf(
      await opts.webhooks.latestReplay(request.principal!.tenantId, id).catch(unavailable('postgres')),
    );
    if (!replay) throw new NotFoundError('This endpoint has not been replayed.');
    return webhookReplaySchema.parse(webhookReplayView(replay));
  });
}
