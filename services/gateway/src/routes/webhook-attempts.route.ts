import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@audit/shared/platform';
import type { WebhookStore } from '../adapters/webhook-store.js';
import { decodeAttemptsCursor, encodeAttemptsCursor } from '../domain/cursor.js';
import { parseWebhookAttemptsQuery } from '../domain/webhook-attempts-query.js';
import { unavailable } from '../plugins/public-api.plugin.js';
import { webhookAttemptListSchema, webhookAttemptView } from '../schemas/webhook-attempts.schema.js';
import { endpointIdOf, endpointOf } from './webhooks.route.js';

export interface WebhookAttemptsOptions {
  webhooks: Pick<WebhookStore, 'attempts'>;
  cursorSecret: string;
}

/** An endpoint's delivery attempts, for its owner (docs/webhooks.md "Delivery attempts"). */
export function webhookAttemptsRoute(app: FastifyInstance, opts: WebhookAttemptsOptions): void {
  app.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/audit/webhooks/:id/attempts',
    { config: { scope: 'audit:read' } },
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
