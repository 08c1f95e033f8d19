import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CommitFailedError, inTransaction } from './transaction.js';

/** A pool of one client whose statements fail as asked; what the client was released with is kept. */
function pool(failing: Partial<Record<'BEGIN' | 'ROLLBACK' | 'COMMIT', Error>>) {
  const released: (Error | undefined)[] = [];
  const client = {
    query: async (sql: string) => {
      const err = failing[sql as keyof typeof failing];
      if (err) throw err;
      return { rows: [] };
    },
    release: (err?: Error) => void released.push(err),
  };
  return { pool: { connect: async () => client } as unknown as pg.Pool, released };
}

describe('inTransaction', () => {
  it('hands the connection back once the transaction ended, committed or rolled back', async () => {
    const ok = pool({});
    expect(await inTransaction(ok.pool, async () => 7)).toBe(7);
    await expect(
      inTransaction(ok.pool, async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(ok.released).toEqual([undefined, undefined]);
  });

  it('closes a connection whose transaction may still be open: its BEGIN, ROLLBACK or COMMIT failed', async () => {
    const timedOut = new Error('Query read timeout');
    const rollback = pool({ ROLLBACK: timedOut });
    await expect(
      inTransaction(rollback.pool, async () => {
        throw new Error('lock wait timed out');
      }),
    ).rejects.toThrow('lock wait timed out');
    const commit = pool({ COMMIT: timedOut });
    await expect(inTransaction(commit.pool, async () => 1)).rejects.toBeInstanceOf(CommitFailedError);
    const begin = pool({ BEGIN: timedOut });
    await expect(inTransaction(begin.pool, async () => 1)).rejects.toBe(timedOut);
    expect([...rollback.released, ...commit.released, ...begin.released]).toEqual([
      timedOut,
      timedOut,
      timedOut,
    ]);
  });
});
