import type pg from 'pg';

export interface WebhookEndpointRecord {
  id: string;
  tenant_id: string;
  url: string;
  event_filter: string[];
  /** The patients whose events the endpoint is sent; empty: every event (docs/webhooks.md "Delivery"). */
  patient_filter: string[];
  description: string;
  active: boolean;
  created_at: Date;
  disabled_at: Date | null;
  consecutive_failures: number;
  last_delivery_at: Date | null;
  /** Counts the endpoint's changes (1 when created): docs/webhooks.md "Delivery", "Endpoint changes". */
  version: number;
  /** When the secret a rotation replaced stops signing deliveries, or null (no overlap running). */
  previous_secret_expires_at: Date | null;
  /** Delivery attempts a second at most (docs/webhooks.md "Rate limit"), or null: no limit. */
  rate_limit_per_second: number | null;
}

export interface StoredWebhookEndpoint extends WebhookEndpointRecord {
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
}

export type NewWebhookEndpoint = Pick<
  StoredWebhookEndpoint,
  | 'id'
  | 'tenant_id'
  | 'url'
  | 'event_filter'
  | 'patient_filter'
  | 'description'
  | 'rate_limit_per_second'
  | 'secret_sealed'
>;

/** What an update changes: the fields given; an absent one stays as it is (a null rate removes the limit). */
export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpointRecord,
    'url' | 'event_filter' | 'patient_filter' | 'description' | 'rate_limit_per_second'
  >
>;

type Queryable = Pick<pg.ClientBase, 'query'>;

const COLUMNS =
  'id, tenant_id, url, event_filter, patient_filter, description, active, created_at, disabled_at, consecutive_failures, last_delivery_at, version, previous_secret_expires_at, rate_limit_per_second';
const SECRETS = 'secret_sealed, previous_secret_sealed';

/** Postgres channel on which every endpoint change is announced (payload `id:change`), at commit. */
export const ENDPOINT_CHANGES_CHANNEL = 'webhook_endpoints';

export type EndpointChange = 'create' | 'update' | 'disable' | 'delete' | 'auto_disable' | 'rotate_secret';

export interface DeliveryAttempt {
  endpoint_id: string;
  event_id: string;
  attempt: number;
  attempted_at: Date;
  succeeded: boolean;
  terminal: boolean;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  replay: boolean;
  /** When the retry of a failed attempt is due; null after a success or the last attempt. */
  next_attempt_at: Date | null;
}

export class EndpointIdTakenError extends Error {
  override name = 'EndpointIdTakenError';
}

/** Postgres access for webhook endpoints; the sealed secret is read only where a delivery is signed. */
export const webhooksRepository = {
  async countForTenant(db: Queryable, tenantId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1',
      [tenantId],
    );
    return rows[0]!.n;
  },

  async insert(db: Queryable, endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRecord> {
    try {
      const { rows } = await db.query<WebhookEndpointRecord>(
        `INSERT INTO webhook_endpoints (id, tenant_id, url, event_filter, patient_filter, description,
           rate_limit_per_second, secret_sealed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [
          endpoint.id,
          endpoint.tenant_id,
          endpoint.url,
          endpoint.event_filter,
          endpoint.patient_filter,
          endpoint.description,
          endpoint.rate_limit_per_second,
          endpoint.secret_sealed,
        ],
      );
      return rows[0]!;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new EndpointIdTakenError(endpoint.id);
      throw err;
    }
  },

  async list(db: Queryable, tenantId: string): Promise<WebhookEndpointRecord[]> {
    const { rows } = await db.query<WebhookEndpointRecord>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 ORDER BY created_at, id`,
      [tenantId],
    );
    return rows;
  },

  /** `forUpdate` holds the row until the transaction ends, so a disable and a delete cannot interleave. */
  async find(db: Queryable, id: string, forUpdate = false): Promise<WebhookEndpointRecord | null> {
    const { rows } = await db.query<WebhookEndpointRecord>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  },

  /** Idempotent: an endpoint disabled before keeps its first `disabled_at`. */
  async disable(db: Queryable, id: string): Promise<WebhookEndpointRecord | null> {
    const { rows } = await db.query<WebhookEndpointRecord>(
      `UPDATE webhook_endpoints SET active = false, disabled_at = coalesce(disabled_at, now())
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] ?? null;
  },

  /**
   * Changes the fields given and moves the endpoint's version on; the others keep their values. The rate limit
   * can be set to null (no limit), so whether it was given is a parameter of its own.
   */
  async update(
    db: Queryable,
    id: string,
    changes: WebhookEndpointChanges,
  ): Promise<WebhookEndpointRecord | null> {
    const { rows } = await db.query<WebhookEndpointRecord>(
      `UPDATE webhook_endpoints SET url = coalesce($2, url), event_filter = coalesce($3, event_filter),
         patient_filter = coalesce($4, patient_filter), description = coalesce($5, description),
         rate_limit_per_second = CASE WHEN $6 THEN $7::integer ELSE rate_limit_per_second END,
         version = version + 1
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        changes.url ?? null,
        changes.event_filter ?? null,
        changes.patient_filter ?? null,
        changes.description ?? null,
        changes.rate_limit_per_second !== undefined,
        changes.rate_limit_per_second ?? null,
      ],
    );
    return rows[0] ?? null;
  },

  /**
   * A new secret; the one it replaces keeps signing for `overlapSeconds` more (a secret replaced before, still
   * in its overlap, stops at once). The endpoint's version moves on.
   */
  async rotateSecret(
    db: Queryable,
    id: string,
    sealed: Buffer,
    overlapSeconds: number,
  ): Promise<WebhookEndpointRecord | null> {
    const { rows } = await db.query<WebhookEndpointRecord>(
      `UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed,
         previous_secret_expires_at = now() + make_interval(secs => $3), secret_sealed = $2, version = version + 1
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, sealed, overlapSeconds],
    );
    return rows[0] ?? null;
  },

  /** Tells every dispatcher, once the transaction commits, that this endpoint changed and how (`id:change`). */
  async announce(db: Queryable, id: string, change: EndpointChange): Promise<void> {
    await db.query('SELECT pg_notify($1, $2)', [ENDPOINT_CHANGES_CHANNEL, `${id}:${change}`]);
  },

  async listActive(db: Queryable): Promise<StoredWebhookEndpoint[]> {
    const { rows } = await db.query<StoredWebhookEndpoint>(
      `SELECT ${COLUMNS}, ${SECRETS} FROM webhook_endpoints WHERE active`,
    );
    return rows;
  },

  async findActive(db: Queryable, id: string): Promise<StoredWebhookEndpoint | null> {
    const { rows } = await db.query<StoredWebhookEndpoint>(
      `SELECT ${COLUMNS}, ${SECRETS} FROM webhook_endpoints WHERE id = $1 AND active`,
      [id],
    );
    return rows[0] ?? null;
  },

  /**
   * One more terminal failure; the endpoint turns inactive when the count reaches `threshold`. The row lock
   * makes concurrent failures count one by one, so exactly one of them is the one that disabled it.
   */
  async addTerminalFailure(
    db: Queryable,
    id: string,
    threshold: number,
  ): Promise<{ failures: number; disabledNow: boolean } | null> {
    const { rows } = await db.query<{ active: boolean; consecutive_failures: number }>(
      'SELECT active, consecutive_failures FROM webhook_endpoints WHERE id = $1 FOR UPDATE',
      [id],
    );
    const before = rows[0];
    if (!before) return null;
    // An inactive endpoint keeps the count that disabled it: late failures and successes no longer move it.
    if (!before.active) return { failures: before.consecutive_failures, disabledNow: false };
    const failures = before.consecutive_failures + 1;
    const disabledNow = before.active && failures >= threshold;
    await db.query(
      `UPDATE webhook_endpoints SET consecutive_failures = $2,
         active = active AND NOT $3, disabled_at = CASE WHEN $3 THEN now() ELSE disabled_at END
       WHERE id = $1`,
      [id, failures, disabledNow],
    );
    return { failures, disabledNow };
  },

  /** Deletes the endpoint and, by cascade, its delivery attempts. */
  async remove(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  },
};
