import type pg from 'pg';

/** The change and its audit event went through, but COMMIT failed: nothing changed, the event overstates. */
export class CommitFailedError extends Error {
  override name = 'CommitFailedError';
}

/**
 * Runs `change` in a transaction. Callers publish the change's audit event inside `change`, so a change is
 * committed only once Kafka has its event: a change never takes effect unaudited.
 */
export async function inTransaction<T>(pool: pg.Pool, change: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    let result: T;
    try {
      result = await change(client);
    } catch (err) {
      // A failing rollback (a lost connection) must not hide why the change failed; Postgres discards it anyway.
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    await client.query('COMMIT').catch((err: unknown) => {
      throw new CommitFailedError((err as Error).message, { cause: err });
    });
    return result;
  } finally {
    client.release();
  }
}
