import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { formatTimestamp } from '@audit/shared/contract';
import { AppError, ForbiddenError, NotFoundError, ValidationError } from '@audit/shared/platform';
import {
  checkTarget,
  parseWebhookUrl,
  standardWebhooksSecret,
  type Resolve,
  type TargetRules,
  type WebhookEndpointRecord,
} from '@audit/shared/webhooks';
import type { Owned, WebhookStore } from '../adapters/webhook-store.js';
import { webhookAuditEvent, type ChangeContext, type WebhookChange } from '../domain/webhook-audit-event.js';
import {
  MAX_ENDPOINTS_PER_TENANT,
  WEBHOOK_ID_PATTERN,
  checkEmptyBody,
  parseCreateWebhook,
  parseRotateSecret,
  parseUpdateWebhook,
  type UpdateWebhook,
} from '../domain/webhook-request.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import {
  createdWebhookSchema,
  listedWebhookView,
  rotatedWebhookSecretSchema,
  webhookEndpointSchema,
  webhookListSchema,
  webhookView,
} from '../schemas/webhooks.schema.js';

export interface WebhookRoutesOptions {
  webhooks: WebhookStore;
  targets: TargetRules & { resolve: Resolve };
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
}

class EndpointLimitError extends AppError {
  readonly status = 409;
  readonly code = 'limit_reached';
}

const noSuchEndpoint = () => new NotFoundError('No webhook endpoint with this id.');
/** How long a webhook target's name may take to resolve while its creator waits. */
export const TARGET_RESOLVE_MS = 2000;
// One answer for every refused host: a literal address, a name that resolves into a refused range, a name that
// does not resolve or not in time (docs/webhooks.md, "Target guard").
export const REFUSED_TARGET =
  `host is not an allowed webhook target: it must resolve, within ${TARGET_RESOLVE_MS / 1000} s, ` +
  'to public addresses only';

/** The endpoint id a path names; a malformed one is answered as one that does not exist (404). */
export function endpointIdOf(id: string): string {
  if (!WEBHOOK_ID_PATTERN.test(id)) throw noSuchEndpoint();
  return id;
}

/** The store's answer about the key's tenant's endpoint: another tenant's is 403, a missing one 404. */
export function endpointOf<T>(result: Owned<T>): T {
  if (result.found) return result.value;
  if (result.reason === 'foreign')
    throw new ForbiddenError('This webhook endpoint belongs to another tenant.');
  throw noSuchEndpoint();
}

/**
 * Refuses a webhook URL that creation would refuse: errors in its own text say what is wrong; a refused host gets
 * REFUSED_TARGET, whatever the reason.
 */
async function checkUrl(request: FastifyRequest, text: string, targets: WebhookRoutesOptions['targets']) {
  const url = parseWebhookUrl(text, targets);
  if (!url.ok)
    throw new ValidationError('Invalid webhook endpoint.', [{ field: 'url', message: url.reason }]);
  const target = await checkTarget(url.value, targets, targets.resolve);
  if (!target.ok) {
    // Why stays in the log: what a name resolves to, or whether it resolves at all, would map the internal
    // network for any key that may create endpoints.
    request.log.info({ reason: target.reason }, 'webhook target refused');
    throw new ValidationError('Refused webhook target.', [{ field: 'url', message: REFUSED_TARGET }]);
  }
}

export function webhookRoutes(app: FastifyInstance, opts: WebhookRoutesOptions): void {
  // A store failure that is not ours to explain (Postgres, or Kafka for the audit event) is a 503.
  const audit = auditWriter(opts);
  const audited =
    (request: FastifyRequest, change: WebhookChange, context?: ChangeContext) =>
    (endpoint: WebhookEndpointRecord) =>
      audit(webhookAuditEvent(apiCallOf(request), change, endpoint, context));

  const idOf = (request: FastifyRequest<{ Params: { id: string } }>) => {
    refuseUnknownQuery(request.query);
    return endpointIdOf(request.params.id);
  };

  app.post('/audit/webhooks', { config: { scope: 'webhooks:write' } }, async (request, reply) => {
    refuseUnknownQuery(request.query);
    const parsed = parseCreateWebhook(request.body);
    if (!parsed.ok) throw new ValidationError('Invalid webhook endpoint.', parsed.errors);
    await checkUrl(request, parsed.value.url, opts.targets);
    const created = await opts.webhooks
      .create(request.principal!.tenantId, parsed.value, audited(request, 'create'))
      .catch(unavailable('postgres'));
    if (!created) {
      throw new EndpointLimitError(
        `A tenant has at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one before adding another.`,
      );
    }
    return reply.code(201).send(
      createdWebhookSchema.parse({
        endpoint: webhookView(created.endpoint),
        secret: created.secret,
        standard_webhooks_secret: standardWebhooksSecret(created.secret),
      }),
    );
  });

  app.get('/audit/webhooks', { config: { scope: 'audit:read' } }, async (request) => {
    refuseUnknownQuery(request.query);
    const endpoints = await opts.webhooks.list(request.principal!.tenantId).catch(unavailable('postgres'));
    const now = Date.now();
    return webhookListSchema.parse({ endpoints: endpoints.map((e) => listedWebhookView(e, now)) });
  });

  app.patch<{ Params: { id: string } }>(
    '/audit/webhooks/:id',
    { config: { scope: 'webhooks:write' } },
    async (request) => {
      const id = idOf(request);
      const parsed = parseUpdateWebhook(request.body);
      if (!parsed.ok) throw new ValidationError('Invalid webhook endpoint update.', parsed.errors);
      if (parsed.value.url !== undefined) await checkUrl(request, parsed.value.url, opts.targets);
      const changed = Object.keys(parsed.value) as (keyof UpdateWebhook)[];
      const result = await opts.webhooks
        .update(request.principal!.tenantId, id, parsed.value, audited(request, 'update', { changed }))
        .catch(unavailable('postgres'));
      return webhookEndpointSchema.parse(webhookView(endpointOf(result)));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/audit/webhooks/:id/disable',
    { config: { scope: 'webhooks:write' } },
    async (request) => {
      const id = idOf(request);
      const errors = checkEmptyBody(request.body);
      if (errors.length > 0) throw new ValidationError('Disable takes no body.', errors);
      const result = await opts.webhooks
        .disable(request.principal!.tenantId, id, audited(request, 'disable'))
        .catch(unavailable('postgres'));
      return webhookEndpointSchema.parse(webhookView(endpointOf(result)));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/audit/webhooks/:id/rotate-secret',
    { config: { scope: 'webhooks:write' } },
    async (request) => {
      const id = idOf(request);
      const parsed = parseRotateSecret(request.body);
      if (!parsed.ok) throw new ValidationError('Invalid secret rotation.', parsed.errors);
      const result = await opts.webhooks
        .rotateSecret(
          request.principal!.tenantId,
          id,
          parsed.overlapSeconds,
          audited(request, 'rotate_secret'),
        )
        .catch(unavailable('postgres'));
      const { endpoint, secret } = endpointOf(result);
      return rotatedWebhookSecretSchema.parse({
        endpoint: webhookView(endpoint),
        secret,
        standard_webhooks_secret: standardWebhooksSecret(secret),
        previous_secret_expires_at: formatTimestamp(endpoint.previous_secret_expires_at!.getTime()),
      });
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/audit/webhooks/:id',
    { config: { scope: 'webhooks:write' } },
    async (request, reply) => {
      const id = idOf(request);
      const errors = checkEmptyBody(request.body);
      if (errors.length > 0) throw new ValidationError('Delete takes no body.', errors);
      endpointOf(
        await opts.webhooks
          .remove(request.principal!.tenantId, id, audited(request, 'delete'))
          .catch(unavailable('postgres')),
      );
      return reply.code(204).send();
    },
  );
}
