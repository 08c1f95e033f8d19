import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import { ValidationError } from '@audit/shared/platform';
import { signatureHeaders, type WebhookClient } from '@audit/shared/webhooks';
import type { WebhookStore } from '../adapters/webhook-store.js';
import { webhookAuditEvent } from '../domain/webhook-audit-event.js';
import { EndpointInactiveError } from '../domain/webhook-errors.js';
import { checkEmptyBody } from '../domain/webhook-request.js';
import { testPayload } from '../domain/webhook-test-payload.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { webhookTestResultSchema } from '../schemas/webhooks.schema.js';
import { endpointIdOf, endpointOf } from './webhooks.route.js';
import { webhookIdParam } from '../schemas/openapi.parts.js';
import { errorResponse, json, rateLimitHeaders } from '../schemas/openapi.responses.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const testWebhookRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/webhooks/{id}/test',
  scope: 'webhooks:write',
  statuses: [400, 403, 404, 413, 415, 422],
  operationId: 'testWebhook',
  tags: ['Webhooks'],
  summary: 'Send the endpoint a signed test payload now, and answer what came of it.',
  description:
    'The gateway POSTs a payload of type `webhook.test` (the delivery envelope, a fresh `id`, no audit event behind it), signed with the live secrets as a delivery is, through the same target guard, and answers the outcome whatever the receiver said. Not a delivery: not retried, not recorded as an attempt, outside the failure count. Written to the trail as `admin.webhook.test` before it is sent. Takes no body (an empty object is tolerated).',
  requestParams: { path: webhookIdParam },
  ok: {
    description: 'What the receiver answered, or why it did not.',
    ...json(webhookTestResultSchema),
  },
  more: {
    409: errorResponse(
      'EndpointInactive',
      'The endpoint is inactive (`endpoint_inactive`): it is sent nothing.',
      undefined,
      rateLimitHeaders,
    ),
  },
};

export interface WebhookTestOptions {
  webhooks: Pick<WebhookStore, 'signing'>;
  /** The dispatcher's guarded client (gateway.service.ts), with the gateway's target rules and WEBHOOK_TEST_TIMEOUT_MS. */
  testSender: Pick<WebhookClient, 'send'>;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  clock: Clock;
}

/**
 * A signed test payload sent to the endpoint at once, from the gateway, and what came of it (docs/webhooks.md
 * "Test deliveries"). Not a delivery: no attempt row, no failure count, no retry.
 */
export function webhookTestRoute(app: FastifyInstance, opts: WebhookTestOptions): void {
  const audit = auditWriter(opts);

  apiRoute<{ Params: { id: string } }>(app, testWebhookRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const id = endpointIdOf(request.params.id);
    const errors = checkEmptyBody(request.body);
    if (errors.length > 0) throw new ValidationError('A test send takes no body.', errors);
    const { endpoint, secrets } = endpointOf(
      await opts.webhooks
        .signing(request.principal!.tenantId, id, opts.clock())
        .catch(unavailable('postgres')),
    );
    if (!secrets) {
      throw new EndpointInactiveError(
        'This webhook endpoint is inactive: it is sent nothing, tests included.',
      );
    }
    const call = apiCallOf(request);
    const testId = randomUUID();
    // Published before anything is sent, as every change is before it commits: Kafka unavailable is a 503 and
    // nothing leaves, so no request to a tenant's URL goes unrecorded. The outcome is the caller's answer.
    await audit(webhookAuditEvent(call, 'test', endpoint, { testId }));
    // Stamped and signed as it leaves, as an attempt is (the publish above may have taken a while).
    const sentAt = opts.clock();
    const body = testPayload(call, endpoint, testId, sentAt);
    const result = await opts.testSender.send({
      endpointId: endpoint.id,
      url: endpoint.url,
      body,
      headers: signatureHeaders(testId, body, secrets, Math.floor(sentAt / 1000)),
    });
    return webhookTestResultSchema.parse({
      delivered: result.ok,
      status_code: result.status,
      latency_ms: result.latencyMs,
      error: result.ok ? null : result.error,
      id: testId,
    });
  });
}
