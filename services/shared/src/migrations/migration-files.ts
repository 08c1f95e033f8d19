import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export const MIGRATIONS_DIR = new URL('../../../../infra/migrations/', import.meta.url);

/** `NNNN_name.sql` files of one store, in version order; a duplicated version is a packaging error. */
export function loadMigrations(dir: URL): Migration[] {
  const migrations = readdirSync(dir)
    .map((file) => /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const sql = readFileSync(new URL(m[0], dir), 'utf8');
      return {
        version: Number(m[1]),
        name: m[2]!,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (i > 0 && migrations[i - 1]!.version === m.version)
      throw new Error(`duplicate migration version ${m.version}`);
  });
  return migrations;
}

/** Statements of a file, split on `;` at line ends (our migration files put no `;` inside literals). */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}

export class MigrationChecksumError extends Error {
  override name = 'MigrationChecksumError';
}

export function checkApplied(
  migrations: readonly Migration[],
  applied: ReadonlyMap<number, string>,
): Migration[] {
  for (const m of migrations) {
    const recorded = applied.get(m.version);
    if (recorded !== undefined && recorded !== m.checksum) {
      throw new MigrationChecksumError(`migration ${m.version}_${m.name} changed after it was applied`);
    }
  }
  return migrations.filter((m) => !applied.has(m.version));
}
