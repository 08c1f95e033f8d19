import type pg from 'pg';

/** A signing key as published: its public half only (docs/integrity.md "Checkpoints"). */
export interface IntegrityKeyRecord {
  name: string;
  verifier_key: string;
  status: 'active' | 'retired';
  created_at: Date;
  created_by: string;
  retired_at: Date | null;
}

type Db = Pick<pg.Pool, 'query'> | pg.PoolClient;

const COLUMNS = 'name, verifier_key, status, created_at, created_by, retired_at';

export const integrityKeysRepository = {
  /** Every key, the active one first, then the retired ones newest first. */
  async list(db: Db): Promise<IntegrityKeyRecord[]> {
    const { rows } = await db.query<IntegrityKeyRecord>(
      `SELECT ${COLUMNS} FROM integrity_keys ORDER BY status = 'active' DESC, created_at DESC, name`,
    );
    return rows;
  },

  /** The active key; `lock` holds it (and so the right to replace it) until the transaction ends. */
  async active(db: Db, lock = false): Promise<(IntegrityKeyRecord & { public_key: Buffer }) | null> {
    const { rows } = await db.query<IntegrityKeyRecord & { public_key: Buffer }>(
      `SELECT ${COLUMNS}, public_key FROM integrity_keys WHERE status = 'active'${lock ? ' FOR UPDATE' : ''}`,
    );
    return rows[0] ?? null;
  },

  async insertActive(
    db: Db,
    key: { name: string; publicKey: Uint8Array; verifierKey: string; createdBy: string },
  ): Promise<IntegrityKeyRecord> {
    const { rows } = await db.query<IntegrityKeyRecord>(
      `INSERT INTO integrity_keys (name, public_key, verifier_key, status, created_by)
       VALUES ($1, $2, $3, 'active', $4) RETURNING ${COLUMNS}`,
      [key.name, Buffer.from(key.publicKey), key.verifierKey, key.createdBy],
    );
    return rows[0]!;
  },

  async retire(db: Db, name: string): Promise<void> {
    await db.query(`UPDATE integrity_keys SET status = 'retired', retired_at = now() WHERE name = $1`, [
      name,
    ]);
  },
};
