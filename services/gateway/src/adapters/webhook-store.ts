import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  EndpointIdTakenError,
  inTransaction,
  secretBinding,
  webhooksRepository as repo,
  type SecretBox,
  type WebhookEndpointRecord,
} from '@audit/shared';
import { MAX_ENDPOINTS_PER_TENANT, type CreateWebhook } from '../domain/webhook-request.js';

/** Publishes the change's audit event; the change commits only after it resolved. */
export type AuditChange = (endpoint: WebhookEndpointRecord) => Promise<void>;

export type Owned<T> = { found: true; value: T } | { found: false; reason: 'missing' | 'foreign' };

const ID_ATTEMPTS = 5;

/** Webhook endpoint changes in Postgres, each in one transaction with its audit event. */
export function webhookStore(pool: pg.Pool, box: SecretBox) {
  async function owned(
    db: pg.PoolClient,
    tenantId: string,
    id: string,
  ): Promise<Owned<WebhookEndpointRecord>> {
    const endpoint = await repo.find(db, id, true);
    if (!endpoint) return { found: false, reason: 'missing' };
    if (endpoint.tenant_id !== tenantId) return { found: false, reason: 'foreign' };
    return { found: true, value: endpoint };
  }

  return {
    /** The new endpoint and its secret, or null when the tenant has reached its endpoint cap. */
    create(tenantId: string, input: CreateWebhook, audit: AuditChange) {
      return inTransaction(pool, async (db) => {
        await repo.lockTenant(db, tenantId);
        if ((await repo.countForTenant(db, tenantId)) >= MAX_ENDPOINTS_PER_TENANT) return null;
        const secret = randomBytes(32).toString('hex');
        for (let attempt = 1; ; attempt++) {
          const id = `wh_${randomBytes(4).toString('hex')}`;
          await db.query('SAVEPOINT new_id');
          try {
            const endpoint = await repo.insert(db, {
              id,
              tenant_id: tenantId,
              ...input,
              secret_sealed: box.seal(secret, secretBinding(id, tenantId)),
            });
            await repo.announce(db, id, 'create');
            await audit(endpoint);
            return { endpoint, secret };
          } catch (err) {
            // Ids are 32 random bits, so a clash is rare but possible: draw again, a bounded number of times.
            if (!(err instanceof EndpointIdTakenError) || attempt === ID_ATTEMPTS) throw err;
            await db.query('ROLLBACK TO SAVEPOINT new_id');
          }
        }
      });
    },

    async list(tenantId: string): Promise<WebhookEndpointRecord[]> {
      return repo.list(pool, tenantId);
    },

    disable(tenantId: string, id: string, audit: AuditChange) {
      return inTransaction(pool, async (db): Promise<Owned<WebhookEndpointRecord>> => {
        const found = await owned(db, tenantId, id);
        if (!found.found) return found;
        await repo.announce(db, id, 'disable');
        await audit(found.value);
        return { found: true, value: (await repo.disable(db, id))! };
      });
    },

    remove(tenantId: string, id: string, audit: AuditChange) {
      return inTransaction(pool, async (db): Promise<Owned<null>> => {
        const found = await owned(db, tenantId, id);
        if (!found.found) return found;
        await repo.remove(db, id);
        await repo.announce(db, id, 'delete');
        await audit(found.value);
        return { found: true, value: null };
      });
    },
  };
}

export type WebhookStore = ReturnType<typeof webhookStore>;
