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
  name: 'record-delivery-attempts-v2',
  text: `
  WITH input AS (
    SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (endpoint_id text, event_id uuid, attempt smallint,
      attempted_at timestamptz, succeeded boolean, terminal boolean, status_code smallint, error text,
      latency_ms integer, replay boolean)) WITH ORDINALITY AS a (endpoint_id, event_id, attempt, attempted_at,
      succeeded, terminal, status_code, error, latency_ms, replay, n)
  ), locked AS (
    SELECT id FROM webhook_endpoints WHERE id IN (SELECT endpoint_id FROM input) ORDER BY id FOR NO KEY UPDATE
  ), stored AS (
    INSERT INTO webhook_delivery_attempts
      (endpoint_id, event_id, attempt, attempted_at, succeeded, terminal, status_code, error, latency_ms, replay)
    SELECT i.endpoint_id, i.event_id, i.attempt, i.attempted_at, i.succeeded, i.terminal, i.status_code, i.error,
           i.latency_ms, i.replay
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
};
