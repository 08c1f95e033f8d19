import type pg from 'pg';

type Queryable = Pick<pg.ClientBase, 'query'>;

// Postgres' foreign key violation: the endpoint was deleted meanwhile.
const ENDPOINT_GONE = '23503';

/**
 * The attempt slots of rate-limited endpoints (docs/webhooks.md "Rate limit"), shared by every dispatcher
 * process through one row per endpoint: each slot is one interval after the one before it, or now when the
 * endpoint has been idle, all by this database's clock; and the gate an attempt passes when its slot comes.
 */
export const rateSlotsRepository = {
  /**
   * Takes the endpoint's next slot, `intervalMs` after the one taken before; answers how long until it begins,
   * in ms (0 when it is now). An endpoint deleted meanwhile has no slots to keep apart: 0.
   */
  async take(db: Queryable, endpointId: string, intervalMs: number): Promise<number> {
    try {
      const { rows } = await db.query<{ wait_ms: number }>(
        `INSERT INTO webhook_rate_slots AS s (endpoint_id, next_at)
           VALUES ($1, clock_timestamp() + make_interval(secs => $2::float8 / 1000))
         ON CONFLICT (endpoint_id) DO UPDATE
           SET next_at = greatest(s.next_at, clock_timestamp()) + make_interval(secs => $2::float8 / 1000)
         RETURNING greatest(0, extract(epoch FROM next_at - clock_timestamp()) * 1000 - $2::float8)::float8 AS wait_ms`,
        [endpointId, intervalMs],
      );
      return rows[0]!.wait_ms;
    } catch (err) {
      if ((err as { code?: unknown }).code === ENDPOINT_GONE) return 0;
      throw err;
    }
  },

  /**
   * Passes the gate at the start of an attempt whose slot has come: at least `intervalMs` after the attempt that
   * passed before it. Answers how much longer to wait (ms; 0 but for an attempt before it that woke up late).
   */
  async pass(db: Queryable, endpointId: string, intervalMs: number): Promise<number> {
    const { rows } = await db.query<{ wait_ms: number }>(
      `UPDATE webhook_rate_slots
         SET passed_at = greatest(passed_at + make_interval(secs => $2::float8 / 1000), clock_timestamp())
       WHERE endpoint_id = $1
       RETURNING greatest(0, extract(epoch FROM passed_at - clock_timestamp()) * 1000)::float8 AS wait_ms`,
      [endpointId, intervalMs],
    );
    return rows[0]?.wait_ms ?? 0;
  },
};
