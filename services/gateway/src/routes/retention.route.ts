import type { FastifyInstance } from 'fastify';
import type { AuditPublisher } from '@audit/shared/audit-topic';
import { ValidationError, zodFieldErrors } from '@audit/shared/platform';
import { policyView, retentionPolicyEvent, type RetentionRepository } from '@audit/shared/retention';
import { apiKeyActor } from '../domain/api-key-actor.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import { json } from '../schemas/openapi.responses.js';
import { policyChangeBodySchema, retentionPolicySchema } from '../schemas/retention.schema.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const getRetentionPolicyRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/retention',
  scope: 'audit:read',
  statuses: [403, 422],
  operationId: 'getRetentionPolicy',
  tags: ['Retention'],
  summary: "The tenant's retention policy in force.",
  description:
    'The default (six years at least, no maximum; `version` 0, `default: true`) until the tenant sets one. A purge (run by an operator) removes the events older than `max_days` that no legal hold covers, and they are never stored again (docs/retention.md, "The purge").',
  ok: { description: 'The policy.', ...json(retentionPolicySchema) },
};

export const setRetentionPolicyRoute: ApiRoute = {
  method: 'PUT',
  path: '/audit/retention',
  scope: 'retention:write',
  statuses: [400, 403, 413, 415, 422],
  operationId: 'setRetentionPolicy',
  tags: ['Retention'],
  summary: "Set the tenant's retention policy: both bounds, a new version.",
  description:
    '`max_days` is never below `min_days` (422 naming `max_days`). Setting the policy as it is still makes a new version. Audited as `admin.retention.update`, with the bounds it replaced.',
  requestBody: { required: true, ...json(policyChangeBodySchema) },
  ok: { description: 'The policy as stored.', ...json(retentionPolicySchema) },
};

export interface RetentionRoutesOptions {
  retention: RetentionRepository;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
}

/** The tenant's retention policy (docs/retention.md "The policy"). */
export function retentionRoutes(app: FastifyInstance, opts: RetentionRoutesOptions): void {
  const audit = auditWriter(opts);

  apiRoute(app, getRetentionPolicyRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const policy = await opts.retention.policy(request.principal!.tenantId).catch(unavailable('postgres'));
    return retentionPolicySchema.parse(policyView(policy));
  });

  apiRoute(app, setRetentionPolicyRoute, async (request) => {
    refuseUnknownQuery(request.query);
    // No body at all is answered as an empty one: each missing bound is named.
    const body = policyChangeBodySchema.safeParse(request.body === undefined ? {} : request.body);
    if (!body.success) throw new ValidationError('Invalid retention policy.', zodFieldErrors(body.error));
    const tenant = request.principal!.tenantId;
    const actor = apiKeyActor(apiCallOf(request));
    const { policy } = await opts.retention
      .setPolicy(tenant, body.data, actor.user_id, (set) =>
        audit(retentionPolicyEvent(tenant, actor, set.policy, set.previous)),
      )
      .catch(unavailable('postgres'));
    return retentionPolicySchema.parse(policyView(policy));
  });
}
