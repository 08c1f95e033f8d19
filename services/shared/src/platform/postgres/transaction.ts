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
  // A connection whose transaction may still be open is closed, never handed back: a query that timed out on the
  // client (a lock wait, with the pool's query_timeout) goes on in the server, and the next user of the
  // connection would run inside that transaction once it gets the lock.
  let unsettled: Error | undefined;
  try {
    await client.query('BEGIN').catch((err: unknown) => {
      unsettled = err as Error;
      throw err;
    });
    let result: T;
    try {
      result = await change(client);
    } catch (err) {
      // A failing rollback (a lost connection, a query still running) must not hide why the change failed.
      await client.query('ROLLBACK').catch((rollback: unknown) => {
        unsettled = rollback as Error;
      });
      throw err;
    }
    await client.query('COMMIT').catch((err: unknown) => {
      unsettled = err as Error;
      throw new CommitFailedError((err as Error).message, { cause: err });
    });
    return result;
  } finally {
    client.release(unsettled);
  }
}
