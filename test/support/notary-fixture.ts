import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestNames } from './names.js';
import { opsCli } from './ops-cli.js';
import { notaryService } from './stack.js';

/** The log name the tests' checkpoints carry (their origin lines start with it). */
export const TEST_LOG_NAME = 'audit.example.test';

/**
 * A notary signing the test's trees every 500 ms with a key the operator CLI made into a directory of the test's,
 * both started before the file's tests and removed after them. The trees are the database's at `databaseUrl`.
 */
export function notaryFixture(names: TestNames, databaseUrl: () => string) {
  const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
  const integrityEnv = { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: TEST_LOG_NAME };
  let notary: ReturnType<typeof notaryService> | undefined;
  beforeAll(async () => {
    notary = notaryService(names, databaseUrl(), {
      ...integrityEnv,
      INTEGRITY_CHECKPOINT_INTERVAL_MS: '500',
    });
    await notary.start();
    const created = await opsCli(names, databaseUrl, integrityEnv)(['integrity', 'keys', 'create', '--json']);
    expect(created.code, created.err).toBe(0);
  });
  afterAll(async () => {
    await notary?.stop();
    rmSync(keyDir, { recursive: true, force: true });
  });
}
