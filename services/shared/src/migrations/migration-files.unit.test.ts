import { describe, expect, it } from 'vitest';
import {
  checkApplied,
  loadMigrations,
  MIGRATIONS_DIR,
  MigrationChecksumError,
  splitStatements,
} from './migration-files.js';

describe('migration files', () => {
  it('loads the committed ClickHouse migrations in version order', () => {
    const versions = loadMigrations(new URL('clickhouse/', MIGRATIONS_DIR)).map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(versions[0]).toBe(1);
  });

  it('splits statements on line-ending semicolons and drops comments', () => {
    expect(splitStatements('-- note\nCREATE TABLE a (x Int8);\n\nCREATE TABLE b (y Int8);\n')).toEqual([
      'CREATE TABLE a (x Int8)',
      'CREATE TABLE b (y Int8)',
    ]);
  });

  it('returns the pending ones and refuses a changed applied one', () => {
    const ms = [
      { version: 1, name: 'a', sql: '', checksum: 'c1' },
      { version: 2, name: 'b', sql: '', checksum: 'c2' },
    ];
    expect(checkApplied(ms, new Map([[1, 'c1']])).map((m) => m.version)).toEqual([2]);
    expect(() => checkApplied(ms, new Map([[1, 'other']]))).toThrow(MigrationChecksumError);
  });
});
