import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@audit/shared/platform';
import type { WebhookStore } from '../adapters/webhook-store.js';
import { decodeAttemptsCursor, encodeAttemptsCursor } from '../domain/cursor.js';
import { parseWebhookAttemptsQuery, webhookAttemptsQuerySchema } from '../domain/webhook-attempts-query.js';
import { unavailable } from '../plugins/public-api.plugin.js';
import { webhookAttemptListSchema, webhookAttemptView } from '../schemas/webhook-attempts.schema.js';
import { endpointIdOf, endpointOf } from './webhooks.route.js';
import { webhookIdParam } from '../schemas/openapi.parts.js';
import { json } from '../schemas/openapi.responses.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const listWebhookAttemptsRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/webhooks/{id}/attempts',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  operationId: 'listWebhookAttempts',
  tags: ['Webhooks'],
  summary:
    "An endpoint's delivery attempts, newest first (attempted_at, then the attempt's row, descending).",
  description:
    "Every attempt the dispatcher made to the endpoint, including retries and replays, kept for `WEBHOOK_ATTEMPT_RETENTION_DAYS` (default 30). `since` and `until` bound the attempt's time. Page with `cursor` (the previous page's `next_cursor`, with the same filters) until `has_more` is false. Another tenant's endpoint is 403; an id that does not exist or is malformed is 404.",
  requestParams: { path: webhookIdParam, query: webhookAttemptsQuerySchema },
  ok: { description: 'One page.', ...json(webhookAttemptListSchema) },
};

export interface WebhookAttemptsOptions {
  webhooks: Pick<WebhookStore, 'attempts'>;
  cursorSecret: string;
}

/** An endpoint's delivery attempts, for its owner (docs/webhooks.md "Delivery attempts"). */
export function webhookAttemptsRoute(app: FastifyInstance, opts: WebhookAttemptsOptions): void {
  apiRoute<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    app,
    listWebhookAttemptsRoute,
    async (request) => {
      const parsed = parseWebhookAttemptsQuery(request.query ?? {});
      if (!parsed.ok) throw new ValidationError('Invalid query parameters.', parsed.errors);
      const { filters, limit, cursor } = parsed.query;
      const id = endpointIdOf(request.params.id);
      const tenant = request.principal!.tenantId;
      const position =
        cursor === undefined ? null : decodeAttemptsCursor(cursor, tenant, id, filters, opts.cursorSecret);
      if (cursor !== undefined && !position) {
        throw new ValidationError('Invalid cursor.', [
          {
            field: 'cursor',
            message: 'is malformed, was altered, or was issued for another tenant, endpoint, list or filters',
          },
        ]);
      }
      // One attempt more than the page: has_more is then exact, never a guess.
      const attempts = endpointOf(
        await opts.webhooks
          .attempts(
            tenant,
            id,
            filters,
            position && { attemptedAtUs: position.ts, id: position.id },
            limit + 1,
          )
          .catch(unavailable('postgres')),
      );
      const page = attempts.slice(0, limit);
      const last = page.at(-1);
      const hasMore = attempts.length > limit && last !== undefined;
      return webhookAttemptListSchema.parse({
        attempts: page.map(webhookAttemptView),
        page: {
          limit,
          returned: page.length,
          next_cursor: hasMore
            ? encodeAttemptsCursor(
                { ts: last.attempted_at_us, id: last.id },
                tenant,
                id,
                filters,
                opts.cursorSecret,
              )
            : null,
          has_more: hasMore,
        },
      });
    },
  );
}
