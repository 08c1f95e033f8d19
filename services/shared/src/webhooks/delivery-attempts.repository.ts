import type pg from 'pg';
import type { DeliveryAttempt } from './webhooks.repository.js';

type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * Many attempts in one statement: each stored only for an
 * endpoint that still exists (one deleted meanwhile took its history with it) and only once (an attempt already
 * recorded, by a delivery redone after a crash, is left as it was when a unique index says so), then
 * `last_delivery_at` moved forward and `consecutive_failures` reset by a success, for what was stored. The
 * endpoint rows are locked first, in id order, so two writers (two dispatcher processes) never lock them
 * crosswise, and a delete cannot slip in between check and insert. The attempts travel as one JSON array (one
 * JSON.stringify, rather than ten array parameters escaped element by element); the statement is prepared once
 * per connection.
 */
const RECORD_ATTEMPTS = {
  name: 'record-delivery-attempts-v3',
  text: `
  WITH input AS (
    SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (endpoint_id text, event_id uuid, attempt smallint,
      attempted_at timestamptz, succeeded boolean, terminal boolean, status_code smallint, error text,
      latency_ms integer, replay boolean, next_attempt_at timestamptz)) WITH ORDINALITY AS a (endpoint_id,
      event_id, attempt, attempted_at, succeeded, terminal, status_code, error, latency_ms, replay,
      next_attempt_at, n)
  ), locked AS (
    SELECT id FROM webhook_endpoints WHERE id IN (SELECT endpoint_id FROM input) ORDER BY id FOR NO KEY UPDATE
  ), stored AS (
    INSERT INTO webhook_delivery_attempts
      (endpoint_id, event_id, attempt, attempted_at, succeeded, terminal, status_code, error, latency_ms, replay,
       next_attempt_at)
    SELECT i.endpoint_id, i.event_id, i.attempt, i.attempted_at, i.succeeded, i.terminal, i.status_code, i.error,
           i.latency_ms, i.replay, i.next_attempt_at
    FROM input i JOIN locked ON locked.id = i.endpoint_id ORDER BY i.n
    ON CONFLICT DO NOTHING
    RETURNING endpoint_id, event_id, attempt, replay, attempted_at, succeeded
  ), health AS (
    UPDATE webhook_endpoints e SET last_delivery_at = greatest(e.last_delivery_at, s.last_at),
      consecutive_failures = CASE WHEN s.succeeded AND e.active THEN 0 ELSE e.consecutive_failures END
    FROM (SELECT endpoint_id, max(attempted_at) AS last_at, bool_or(succeeded) AS succeeded
          FROM stored GROUP BY endpoint_id) s
    WHERE e.id = s.endpoint_id
  )
  SELECT endpoint_id, event_id::text AS event_id, attempt, replay FROM stored`,
};

/** An attempt as the endpoint's owner reads it (docs/webhooks.md "Delivery attempts"). */
export interface ListedAttempt {
  /** The row's id (bigserial, as text): the order's tie-break between attempts made in the same instant. */
  id: string;
  event_id: string;
  attempt: number;
  attempted_at: Date;
  /** `attempted_at` exactly as stored, in microseconds since the epoch: where a page ends. */
  attempted_at_us: number;
  succeeded: boolean;
  terminal: boolean;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  next_attempt_at: Date | null;
  replay: boolean;
}

/** Which of an endpoint's attempts to read; each one given narrows the read. */
export interface AttemptFilters {
  /** Lowercase, as stored. */
  eventId?: string;
  succeeded?: boolean;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
}

/** The last attempt of the previous page: its time in microseconds, and its id. */
export interface AttemptPosition {
  attemptedAtUs: number;
  id: string;
}

const LISTED_COLUMNS = `id::text AS id, event_id::text AS event_id, attempt, attempted_at,
  (extract(epoch FROM attempted_at) * 1000000)::bigint AS attempted_at_us, succeeded, terminal, status_code, error,
  latency_ms, next_attempt_at, replay`;

/** Which attempt: on the normal path one row at most (0004); a replayed one, that of each replay run. */
export type AttemptKey = Pick<DeliveryAttempt, 'endpoint_id' | 'event_id' | 'attempt' | 'replay'>;

const attemptKey = (a: AttemptKey) => `${a.endpoint_id}|${a.event_id}|${a.attempt}|${a.replay}`;
const keyValues = (a: AttemptKey) => [a.endpoint_id, a.event_id, a.attempt, a.replay];

/** Delivery history in Postgres. */
export const deliveryAttemptsRepository = {
  /** Stores many attempts in one statement; answers, per attempt in order, whether this write stored it. */
  async record(db: Queryable, attempts: readonly DeliveryAttempt[]): Promise<boolean[]> {
    // Dates become ISO 8601 text in JSON, which timestamptz reads exactly (millisecond precision, UTC).
    const { rows } = await db.query<{
      endpoint_id: string;
      event_id: string;
      attempt: number;
      replay: boolean;
    }>({
      ...RECORD_ATTEMPTS,
      values: [JSON.stringify(attempts)],
    });
    // One input stores at most one row: as many rows as attempts means every one was stored (the usual case).
    if (rows.length === attempts.length) return attempts.map(() => true);
    // Each stored row answers for one attempt of its key (the first, when one write carried the same one twice).
    const stored = new Map<string, number>();
    for (const r of rows) stored.set(attemptKey(r), (stored.get(attemptKey(r)) ?? 0) + 1);
    return attempts.map((a) => {
      const key = attemptKey({ ...a, event_id: a.event_id.toLowerCase() });
      const left = stored.get(key) ?? 0;
      if (left === 0) return false;
      stored.set(key, left - 1);
      return true;
    });
  },
  /**
   * Marks the terminal attempt settled; true when this call did (the caller then counts it), false when it was
   * settled before or is gone with its endpoint. Meant for the transaction that counts it.
   */
  async settle(db: Queryable, key: AttemptKey): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE webhook_delivery_attempts SET settled = true
       WHERE endpoint_id = $1 AND event_id = $2 AND attempt = $3 AND replay = $4 AND terminal AND NOT settled`,
      keyValues(key),
    );
    return (rowCount ?? 0) > 0;
  },

  /**
   * Whether the attempt, as first recorded, leaves nothing to settle: it was settled already, or it was not
   * terminal (the first run succeeded, or was handed to a retry). False when it was never recorded, or its
   * endpoint is gone.
   */
  async isSettled(db: Queryable, key: AttemptKey): Promise<boolean> {
    const { rows } = await db.query(
      `SELECT 1 FROM webhook_delivery_attempts
       WHERE endpoint_id = $1 AND event_id = $2 AND attempt = $3 AND replay = $4 AND (settled OR NOT terminal)
       LIMIT 1`,
      keyValues(key),
    );
    return rows.length > 0;
  },

  /**
   * One page of an endpoint's attempts, newest first (time, then id, both descending: a total order), after
   * `after` when given. Positions are compared in microseconds, as the column stores them, so that a page never
   * ends between two attempts a rounding would make equal.
   */
  async page(
    db: Queryable,
    endpointId: string,
    filters: AttemptFilters,
    after: AttemptPosition | null,
    limit: number,
  ): Promise<ListedAttempt[]> {
    const values: unknown[] = [endpointId];
    const param = (value: unknown) => `$${values.push(value)}`;
    const where = ['endpoint_id = $1'];
    if (filters.eventId !== undefined) {
      // An event's attempts are in one of two partial indexes, the normal path's (0004) or the replays' (0011):
      // the condition on `replay`, always true, lets the planner read both instead of all the endpoint's rows.
      where.push(`event_id = ${param(filters.eventId)} AND (NOT replay OR replay)`);
    }
    if (filters.succeeded !== undefined) where.push(`succeeded = ${param(filters.succeeded)}`);
    if (filters.since !== undefined) where.push(`attempted_at >= ${param(new Date(filters.since))}`);
    if (filters.until !== undefined) where.push(`attempted_at < ${param(new Date(filters.until))}`);
    if (after) {
      const at = `'epoch'::timestamptz + ${param(after.attemptedAtUs)}::bigint * interval '1 microsecond'`;
      where.push(`(attempted_at, id) < (${at}, ${param(after.id)}::bigint)`);
    }
    const { rows } = await db.query<Omit<ListedAttempt, 'attempted_at_us'> & { attempted_at_us: string }>(
      `SELECT ${LISTED_COLUMNS} FROM webhook_delivery_attempts WHERE ${where.join(' AND ')}
       ORDER BY attempted_at DESC, id DESC LIMIT ${param(limit)}`,
      values,
    );
    return rows.map((r) => ({ ...r, attempted_at_us: Number(r.attempted_at_us) }));
  },

  /**
   * Deletes up to `batch` attempts made before `cutoff`, in one short statement; answers how many. Each endpoint's
   * old attempts are found through its own index range (endpoint, time), so a pass costs a few pages per endpoint
   * when there is nothing to delete, however large the table.
   */
  async deleteBefore(db: Queryable, cutoff: Date, batch: number): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM webhook_delivery_attempts WHERE id = ANY (ARRAY(
         SELECT old.id FROM webhook_endpoints e CROSS JOIN LATERAL (
           SELECT a.id FROM webhook_delivery_attempts a WHERE a.endpoint_id = e.id AND a.attempted_at < $1 LIMIT $2
         ) old
         LIMIT $2))`,
      [cutoff, batch],
    );
    return rowCount ?? 0;
  },
};
