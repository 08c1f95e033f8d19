import type { FastifyInstance } from 'fastify';
import type { AuditPublisher } from '@audit/shared/audit-topic';
import { ValidationError, zodFieldErrors } from '@audit/shared/platform';
import { formatTimestamp } from '@audit/shared/contract';
import {
  policyView,
  purgeRunView,
  retentionPolicyEvent,
  type PurgeRepository,
  type RetentionPolicy,
  type RetentionRepository,
} from '@audit/shared/retention';
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
  summary: "The tenant's retention policy in force, and where its purges have reached.",
  description:
    'The default (six years at least, no maximum; `version` 0, `default: true`) until the tenant sets one. A purge (run every day by the custodian, or by an operator) removes the events older than `max_days` that no legal hold covers, and they are never stored again (docs/retention.md, "The purge"): `purged_before` is the horizon it reached, `last_purge` the latest run.',
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

/** What the gateway reads of the tenant's purges: its horizon and runs, and what its window proofs weigh. */
export type PurgeReader = Pick<PurgeRepository, 'status' | 'history'>;

export interface RetentionRoutesOptions {
  retention: RetentionRepository;
  purges: PurgeReader;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
}

/** The tenant's retention policy (docs/retention.md "The policy"). */
export function retentionRoutes(app: FastifyInstance, opts: RetentionRoutesOptions): void {
  const audit = auditWriter(opts);
  /** The tenant's horizon and latest purge run. */
  const purgesOf = (tenant: string) => opts.purges.status(tenant, 1).catch(unavailable('postgres'));
  /** The policy with where the tenant's purges reached. */
  const view = (policy: RetentionPolicy, purges: Awaited<ReturnType<typeof purgesOf>>) => {
    const last = purges.runs[0];
    return retentionPolicySchema.parse({
      ...policyView(policy),
      purged_before: purges.purgedBefore === null ? null : formatTimestamp(purges.purgedBefore),
      last_purge: last ? purgeRunView(last) : null,
    });
  };

  apiRoute(app, getRetentionPolicyRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const tenant = request.principal!.tenantId;
    const [policy, purges] = await Promise.all([
      opts.retention.policy(tenant).catch(unavailable('postgres')),
      purgesOf(tenant),
    ]);
    return view(policy, purges);
  });

  apiRoute(app, setRetentionPolicyRoute, async (request) => {
    refuseUnknownQuery(request.query);
    // No body at all is answered as an empty one: each missing bound is named.
    const body = policyChangeBodySchema.safeParse(request.body === undefined ? {} : request.body);
    if (!body.success) throw new ValidationError('Invalid retention policy.', zodFieldErrors(body.error));
    const tenant = request.principal!.tenantId;
    const actor = apiKeyActor(apiCallOf(request));
    // Read first: once the policy is stored, the answer must not be a 503 that invites a second version.
    const purges = await purgesOf(tenant);
    const { policy } = await opts.retention
      .setPolicy(tenant, body.data, actor.user_id, (set) =>
        audit(retentionPolicyEvent(tenant, actor, set.policy, set.previous)),
      )
      .catch(unavailable('postgres'));
    return view(policy, purges);
  });
}
