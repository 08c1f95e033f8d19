import type pg from 'pg';
import { inTransaction } from '@audit/shared/platform';
import { tenantProfilesRepository as profiles } from '@audit/shared/tenants';
import type { AuditedContext } from '../contexts.js';
import { tenantUpdateEvent } from '../domain/tenant-audit-event.js';
import { announcer, committed } from './audited-change.js';

export const tenantsCommands = {
  /** The tenant's name, null while none was given (its reports are then headed with its id). */
  async show(pool: pg.Pool, tenant: string) {
    return { tenant_id: tenant, display_name: await profiles.displayName(pool, tenant) };
  },

  /**
   * Names the tenant; committed only once Kafka has its `admin.tenant.update` event, so that no name is ever
   * changed without the change in the tenant's trail. Naming it again as it is named is recorded too.
   */
  async setName(ctx: AuditedContext, tenant: string, name: string) {
    const announce = announcer(ctx);
    const previous = await committed(
      inTransaction(ctx.pool, async (db) => {
        const replaced = await profiles.setDisplayName(db, tenant, name, ctx.operator.id);
        await announce(tenantUpdateEvent(tenant, name, replaced, ctx.operator));
        return replaced;
      }),
      'name',
      `tenants show --tenant ${tenant}`,
    );
    return { tenant_id: tenant, display_name: name, previous };
  },
};
