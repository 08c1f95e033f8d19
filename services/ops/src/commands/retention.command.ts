import type pg from 'pg';
import { retentionPolicyEvent, retentionRepository, type PolicyChange } from '@audit/shared/retention';
import type { AuditedContext } from '../contexts.js';
import { operatorActor } from '../domain/retention-actor.js';
import { announcer, committed } from './audited-change.js';

export const retentionCommands = {
  /** The policy in force: the default (version 0) while none was set. */
  show: (pool: pg.Pool, tenant: string) => retentionRepository(pool).policy(tenant),

  /**
   * Sets the policy as its next version; committed only once Kafka has its `admin.retention.update` event. Setting
   * it as it is makes a version too: the trail shows every time someone decided.
   */
  set(ctx: AuditedContext, tenant: string, change: PolicyChange) {
    const announce = announcer(ctx);
    const set = retentionRepository(ctx.pool).setPolicy(
      tenant,
      change,
      ctx.operator.id,
      ({ policy, previous }) =>
        announce(retentionPolicyEvent(tenant, operatorActor(ctx.operator), policy, previous)),
    );
    return committed(set, 'policy', `retention show --tenant ${tenant}`);
  },
};
