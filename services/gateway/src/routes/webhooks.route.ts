import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { formatTimestamp } from '@audit/shared/contract';
import { errorKind, ForbiddenError, NotFoundError, ValidationError } from '@audit/shared/platform';
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
  createWebhookBodySchema,
  rotateSecretBodySchema,
  updateWebhookBodySchema,
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
import { webhookIdParam, webhookLinks } from '../schemas/openapi.parts.js';
import { json } from '../schemas/openapi.responses.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const createWebhookRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/webhooks',
  scope: 'webhooks:write',
  statuses: [400, 403, 409, 413, 415, 422],
  operationId: 'createWebhook',
  tags: ['Webhooks'],
  summary: 'Register a webhook endpoint; its secret is returned only here.',
  description:
    'Matching events (their action by `event_filter`, their patient by `patient_filter`) are pushed to the URL, signed with the secret. The host must resolve to public addresses only (docs/webhooks.md, "Target guard"); at most 100 endpoints per tenant.',
  requestBody: { required: true, ...json(createWebhookBodySchema) },
  okStatus: 201,
  ok: {
    description: 'The endpoint and its secret.',
    ...json(createdWebhookSchema),
    links: webhookLinks('/endpoint'),
  },
};

export const listWebhooksRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/webhooks',
  scope: 'audit:read',
  statuses: [403, 422],
  operationId: 'listWebhooks',
  tags: ['Webhooks'],
  summary: "The tenant's webhook endpoints, disabled ones included.",
  description:
    "Oldest first, with the delivery state of each. To a key without `webhooks:write`, each `url` is shown without its query (`?REDACTED`) and credentials: receivers' tokens stay with those who may change the endpoints.",
  ok: {
    description: 'The endpoints.',
    ...json(webhookListSchema),
    links: webhookLinks('/endpoints/0'),
  },
};

export const disableWebhookRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/webhooks/{id}/disable',
  scope: 'webhooks:write',
  statuses: [400, 403, 404, 413, 415, 422],
  operationId: 'disableWebhook',
  tags: ['Webhooks'],
  summary: 'Disable an endpoint (idempotent).',
  description:
    'No more deliveries: pending retries are dropped, the delivery history is kept. An endpoint is never enabled again.',
  requestParams: { path: webhookIdParam },
  ok: {
    description: 'The endpoint, inactive.',
    ...json(webhookEndpointSchema),
    links: { DeleteWebhook: webhookLinks('').DeleteWebhook },
  },
};

export const rotateWebhookSecretRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/webhooks/{id}/rotate-secret',
  scope: 'webhooks:write',
  statuses: [400, 403, 404, 413, 415, 422],
  operationId: 'rotateWebhookSecret',
  tags: ['Webhooks'],
  summary: 'A new secret for an endpoint; the one it replaces keeps signing for an overlap.',
  description:
    'Until `previous_secret_expires_at` every delivery is signed by both secrets (two `v1=` in X-Service-Signature, two entries in `webhook-signature`), then by the new one only (docs/webhooks.md, "Secrets"). The new secret is returned only here.',
  requestParams: { path: webhookIdParam },
  requestBody: { required: false, ...json(rotateSecretBodySchema) },
  ok: {
    description: 'The endpoint and its new secret.',
    ...json(rotatedWebhookSecretSchema),
    links: { DisableWebhook: webhookLinks('/endpoint').DisableWebhook },
  },
};

export const updateWebhookRoute: ApiRoute = {
  method: 'PATCH',
  path: '/audit/webhooks/{id}',
  scope: 'webhooks:write',
  statuses: [400, 403, 404, 413, 415, 422],
  operationId: 'updateWebhook',
  tags: ['Webhooks'],
  summary: "Change an endpoint's URL, filters, label or rate limit.",
  description:
    'The fields given change; the others stay. Each is checked as at creation, a new URL by the target guard too. Events written after the answer are delivered as the endpoint is now. An inactive endpoint can be changed and stays inactive; its secret never changes here.',
  requestParams: { path: webhookIdParam },
  requestBody: { required: true, ...json(updateWebhookBodySchema) },
  ok: {
    description: 'The endpoint as changed.',
    ...json(webhookEndpointSchema),
    links: { TestWebhook: webhookLinks('').TestWebhook },
  },
};

export const deleteWebhookRoute: ApiRoute = {
  method: 'DELETE',
  path: '/audit/webhooks/{id}',
  scope: 'webhooks:write',
  statuses: [403, 404, 422],
  operationId: 'deleteWebhook',
  tags: ['Webhooks'],
  summary: 'Delete an endpoint and its delivery history.',
  description: 'The endpoint no longer counts against the limit of 100.',
  requestParams: { path: webhookIdParam },
  okStatus: 204,
  ok: { description: 'Deleted.' },
};

export interface WebhookRoutesOptions {
  webhooks: WebhookStore;
  targets: TargetRules & { resolve: Resolve };
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
}

class EndpointLimitError extends errorKind(409, 'limit_reached') {}

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

  apiRoute(app, createWebhookRoute, async (request, reply) => {
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

  apiRoute(app, listWebhooksRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const endpoints = await opts.webhooks.list(request.principal!.tenantId).catch(unavailable('postgres'));
    const now = Date.now();
    // A reader of the trail is not always the endpoints' owner: receivers' tokens stay with those who may write.
    const redact = !request.principal!.scopes.has('webhooks:write');
    return webhookListSchema.parse({ endpoints: endpoints.map((e) => listedWebhookView(e, now, redact)) });
  });

  apiRoute<{ Params: { id: string } }>(app, updateWebhookRoute, async (request) => {
    const id = idOf(request);
    const parsed = parseUpdateWebhook(request.body);
    if (!parsed.ok) throw new ValidationError('Invalid webhook endpoint update.', parsed.errors);
    if (parsed.value.url !== undefined) await checkUrl(request, parsed.value.url, opts.targets);
    const changed = Object.keys(parsed.value) as (keyof UpdateWebhook)[];
    const result = await opts.webhooks
      .update(request.principal!.tenantId, id, parsed.value, audited(request, 'update', { changed }))
      .catch(unavailable('postgres'));
    return webhookEndpointSchema.parse(webhookView(endpointOf(result)));
  });

  apiRoute<{ Params: { id: string } }>(app, disableWebhookRoute, async (request) => {
    const id = idOf(request);
    const errors = checkEmptyBody(request.body);
    if (errors.length > 0) throw new ValidationError('Disable takes no body.', errors);
    const result = await opts.webhooks
      .disable(request.principal!.tenantId, id, audited(request, 'disable'))
      .catch(unavailable('postgres'));
    return webhookEndpointSchema.parse(webhookView(endpointOf(result)));
  });

  apiRoute<{ Params: { id: string } }>(app, rotateWebhookSecretRoute, async (request) => {
    const id = idOf(request);
    const parsed = parseRotateSecret(request.body);
    if (!parsed.ok) throw new ValidationError('Invalid secret rotation.', parsed.errors);
    const result = await opts.webhooks
      .rotateSecret(request.principal!.tenantId, id, parsed.overlapSeconds, audited(request, 'rotate_secret'))
      .catch(unavailable('postgres'));
    const { endpoint, secret } = endpointOf(result);
    return rotatedWebhookSecretSchema.parse({
      endpoint: webhookView(endpoint),
      secret,
      standard_webhooks_secret: standardWebhooksSecret(secret),
      previous_secret_expires_at: formatTimestamp(endpoint.previous_secret_expires_at!.getTime()),
    });
  });

  apiRoute<{ Params: { id: string } }>(app, deleteWebhookRoute, async (request, reply) => {
    const id = idOf(request);
    const errors = checkEmptyBody(request.body);
    if (errors.length > 0) throw new ValidationError('Delete takes no body.', errors);
    endpointOf(
      await opts.webhooks
        .remove(request.principal!.tenantId, id, audited(request, 'delete'))
        .catch(unavailable('postgres')),
    );
    return reply.code(204).send();
  });
}
