import type pg from 'pg';
import { CommitFailedError, inTransaction } from '@audit/shared/platform';
import { tenantProfilesRepository as profiles } from '@audit/shared/tenants';
import type { AuditedContext } from '../contexts.js';
import { tenantUpdateEvent } from '../domain/tenant-audit-event.js';
import { CliError } from './cli-error.js';

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
    const previous = await inTransaction(ctx.pool, async (db) => {
      const replaced = await profiles.setDisplayName(db, tenant, name, ctx.operator.id);
      await ctx.publisher
        .publish([tenantUpdateEvent(tenant, name, replaced, ctx.operator)])
        .catch((err: unknown) => {
          throw new CliError(
            `the audit event could not be written (${(err as Error).message}): nothing changed`,
          );
        });
      return replaced;
    }).catch((err: unknown) => {
      if (!(err instanceof CommitFailedError)) throw err;
      throw new CliError(
        `the audit event was written, but the name could not be committed (${err.message}); check it with ` +
          '"tenants show" and repeat the command',
      );
    });
    return { tenant_id: tenant, display_name: name, previous };
  },
};
