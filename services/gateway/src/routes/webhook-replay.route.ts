import type { FastifyInstance } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import { NotFoundError, ValidationError } from '@audit/shared/platform';
import type { WebhookStore } from '../adapters/webhook-store.js';
import { webhookAuditEvent } from '../domain/webhook-audit-event.js';
import { EndpointInactiveError, ReplayInProgressError } from '../domain/webhook-errors.js';
import { parseReplayRequest } from '../domain/webhook-replay-request.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { webhookReplaySchema, webhookReplayView } from '../schemas/webhook-replays.schema.js';
import { endpointIdOf, endpointOf } from './webhooks.route.js';

export interface WebhookReplayOptions {
  webhooks: Pick<WebhookStore, 'startReplay' | 'latestReplay'>;
  /** The longest window a replay may cover, in days (WEBHOOK_REPLAY_MAX_DAYS). */
  replayMaxDays: number;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  clock: Clock;
}

/** The owner's replays of an endpoint (docs/webhooks.md "Replays"): one asked for, and the newest one's progress. */
export function webhookReplayRoute(app: FastifyInstance, opts: WebhookReplayOptions): void {
  const audit = auditWriter(opts);

  app.post<{ Params: { id: string } }>(
    '/audit/webhooks/:id/replay',
    { config: { scope: 'webhooks:write' } },
    async (request, reply) => {
      refuseUnknownQuery(request.query);
      const id = endpointIdOf(request.params.id);
      const parsed = parseReplayRequest(request.body, { now: opts.clock(), maxDays: opts.replayMaxDays });
      if (!parsed.ok) throw new ValidationError('Invalid replay.', parsed.errors);
      const window = { since: parsed.since, until: parsed.until };
      const call = apiCallOf(request);
      const started = endpointOf(
        await opts.webhooks
          .startReplay(
            call.principal.tenantId,
            id,
            window,
            `api_key:${call.principal.prefix}`,
            (endpoint, replay) => audit(webhookAuditEvent(call, 'replay', endpoint, { replay })),
          )
          .catch(unavailable('postgres')),
      );
      if ('inactive' in started) {
        throw new EndpointInactiveError(
          'This webhook endpoint is inactive: it is sent nothing, replays included.',
        );
      }
      if ('inProgress' in started) {
        throw new ReplayInProgressError(
          'This endpoint has a replay queued or running; ask again once it has ended.',
        );
      }
      return reply.code(202).send(webhookReplaySchema.parse(webhookReplayView(started.replay)));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/audit/webhooks/:id/replay',
    { config: { scope: 'audit:read' } },
    async (request) => {
      refuseUnknownQuery(request.query);
      const id = endpointIdOf(request.params.id);
      const replay = endpointOf(
        await opts.webhooks.latestReplay(request.principal!.tenantId, id).catch(unavailable('postgres')),
      );
      if (!replay) throw new NotFoundError('This endpoint has not been replayed.');
      return webhookReplaySchema.parse(webhookReplayView(replay));
    },
  );
}
