import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, lockTenant } from '@audit/shared/platform';
import {
  EndpointIdTakenError,
  deliveryAttemptsRepository as attemptsRepo,
  liveSecrets,
  secretBinding,
  webhookReplaysRepository as replaysRepo,
  webhooksRepository as repo,
  type AttemptFilters,
  type AttemptPosition,
  type ListedAttempt,
  type SecretBox,
  type WebhookEndpointRecord,
  type WebhookReplay,
} from '@audit/shared/webhooks';
import {
  MAX_ENDPOINTS_PER_TENANT,
  type CreateWebhook,
  type UpdateWebhook,
} from '../domain/webhook-request.js';

/** Publishes the change's audit event; the change commits only after it resolved. */
export type AuditChange = (endpoint: WebhookEndpointRecord) => Promise<void>;

export type Owned<T> = { found: true; value: T } | { found: false; reason: 'missing' | 'foreign' };

const ID_ATTEMPTS = 5;

/** An endpoint secret: 32 random bytes as 64 lowercase hex characters (docs/webhooks.md "Secrets"). */
const newSecret = () => randomBytes(32).toString('hex');

/** Webhook endpoint changes in Postgres, each in one transaction with its audit event. */
export function webhookStore(pool: pg.Pool, box: SecretBox) {
  /** The tenant's endpoint; `lock` holds its row until the transaction ends (for a change). */
  async function owned(
    db: pg.Pool | pg.PoolClient,
    tenantId: string,
    id: string,
    lock = true,
  ): Promise<Owned<WebhookEndpointRecord>> {
    const endpoint = await repo.find(db, id, lock);
    if (!endpoint) return { found: false, reason: 'missing' };
    if (endpoint.tenant_id !== tenantId) return { found: false, reason: 'foreign' };
    return { found: true, value: endpoint };
  }

  return {
    /** The new endpoint and its secret, or null when the tenant has reached its endpoint cap. */
    create(tenantId: string, input: CreateWebhook, audit: AuditChange) {
      return inTransaction(pool, async (db) => {
        await lockTenant(db, 'webhookEndpoints', tenantId);
        if ((await repo.countForTenant(db, tenantId)) >= MAX_ENDPOINTS_PER_TENANT) return null;
        const secret = newSecret();
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

    /** A new secret for the endpoint; the one it replaces keeps signing for `overlapSeconds`. */
    rotateSecret(tenantId: string, id: string, overlapSeconds: number, audit: AuditChange) {
      return inTransaction(
        pool,
        async (db): Promise<Owned<{ endpoint: WebhookEndpointRecord; secret: string }>> => {
          const found = await owned(db, tenantId, id);
          if (!found.found) return found;
          const secret = newSecret();
          const sealed = box.seal(secret, secretBinding(id, tenantId));
          const endpoint = (await repo.rotateSecret(db, id, sealed, overlapSeconds))!;
          await repo.announce(db, id, 'rotate_secret');
          await audit(endpoint);
          return { found: true, value: { endpoint, secret } };
        },
      );
    },

    /** Changes the fields given; an inactive endpoint can be changed too, and stays inactive. */
    update(tenantId: string, id: string, changes: UpdateWebhook, audit: AuditChange) {
      return inTransaction(pool, async (db): Promise<Owned<WebhookEndpointRecord>> => {
        const found = await owned(db, tenantId, id);
        if (!found.found) return found;
        const endpoint = (await repo.update(db, id, changes))!;
        await repo.announce(db, id, 'update');
        await audit(endpoint);
        return { found: true, value: endpoint };
      });
    },

    /**
     * The endpoint with the secrets a delivery made at `now` is signed with (the current one, and the one a
     * rotation replaced while its overlap runs: `liveSecrets`, as the dispatcher signs), or `secrets: null` for an
     * inactive endpoint, which is sent nothing. A read: nothing is locked.
     */
    async signing(
      tenantId: string,
      id: string,
      now: number,
    ): Promise<Owned<{ endpoint: WebhookEndpointRecord; secrets: string[] | null }>> {
      // One query for an active endpoint, the usual case; only an inactive or missing one needs the row as such.
      const stored = await repo.findActive(pool, id);
      if (!stored) {
        const found = await owned(pool, tenantId, id, false);
        return found.found ? { found: true, value: { endpoint: found.value, secrets: null } } : found;
      }
      if (stored.tenant_id !== tenantId) return { found: false, reason: 'foreign' };
      const { secret_sealed, previous_secret_sealed, ...endpoint } = stored;
      const binding = secretBinding(id, tenantId);
      const expiresAt = endpoint.previous_secret_expires_at?.getTime();
      const secrets = liveSecrets(
        {
          secret: box.open(secret_sealed, binding),
          previous:
            previous_secret_sealed && expiresAt !== undefined
              ? { secret: box.open(previous_secret_sealed, binding), expiresAt }
              : null,
        },
        now,
      );
      return { found: true, value: { endpoint, secrets } };
    },

    async list(tenantId: string): Promise<WebhookEndpointRecord[]> {
      return repo.list(pool, tenantId);
    },

    /**
     * A page of the endpoint's delivery attempts (`limit` of them, newest first, after `after`). A read: the
     * endpoint is not locked, and one deleted meanwhile reads as having none.
     */
    async attempts(
      tenantId: string,
      id: string,
      filters: AttemptFilters,
      after: AttemptPosition | null,
      limit: number,
    ): Promise<Owned<ListedAttempt[]>> {
      const found = await owned(pool, tenantId, id, false);
      if (!found.found) return found;
      return { found: true, value: await attemptsRepo.page(pool, id, filters, after, limit) };
    },

    /**
     * A replay of the endpoint's events ingested in the window, queued with its audit event in one transaction
     * (docs/webhooks.md "Replays"); `inactive` for an inactive endpoint, `inProgress` when one is queued or
     * running, `tooMany` when the tenant has `perTenant` queued or running (the tenant's lock makes the count
     * exact under concurrent requests).
     */
    startReplay(
      tenantId: string,
      id: string,
      window: { since: number; until: number },
      { requestedBy, perTenant }: { requestedBy: string; perTenant: number },
      audit: (endpoint: WebhookEndpointRecord, replay: WebhookReplay) => Promise<void>,
    ) {
      type Started =
        { replay: WebhookReplay } | { inactive: true } | { inProgress: true } | { tooMany: true };
      return inTransaction(pool, async (db): Promise<Owned<Started>> => {
        await lockTenant(db, 'webhookReplays', tenantId);
        const found = await owned(db, tenantId, id);
        if (!found.found) return found;
        if (!found.value.active) return { found: true, value: { inactive: true } };
        if ((await replaysRepo.countActive(db, tenantId)) >= perTenant) {
          // The endpoint's own replay under way is the more precise answer.
          const latest = await replaysRepo.latest(db, id);
          const busy = latest?.status === 'queued' || latest?.status === 'running';
          return { found: true, value: busy ? { inProgress: true } : { tooMany: true } };
        }
        const replay = await replaysRepo.insert(db, {
          id: randomUUID(),
          endpointId: id,
          tenantId,
          ...window,
          requestedBy,
        });
        if (!replay) return { found: true, value: { inProgress: true } };
        await audit(found.value, replay);
        return { found: true, value: { replay } };
      });
    },

    /** The endpoint's newest replay (null before its first). A read: nothing is locked. */
    async latestReplay(tenantId: string, id: string): Promise<Owned<WebhookReplay | null>> {
      const found = await owned(pool, tenantId, id, false);
      if (!found.found) return found;
      return { found: true, value: await replaysRepo.latest(pool, id) };
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
