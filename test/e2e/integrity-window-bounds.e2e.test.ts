import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootOfLeaves } from '@audit-trail/integrity-verifier';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { serviceLogin } from '../support/postgres.js';
import { notaryService } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

// A page of a window proof may read 24 stored hashes here; a proof statement may run 3 s.
const MAX_HASHES = 24;
const STATEMENT_MS = 3000;
const { names, ingest: ingestProc, databaseUrl } = pipelineFixture('iwindow', {}, { trees: true });
const gw = gatewayFixture(names, {
  databaseUrl,
  env: { WINDOW_PROOF_MAX_HASHES: String(MAX_HASHES), INTEGRITY_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS) },
});
const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
const integrityEnv = { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: 'audit.example.test' };
const ops = opsCli(names, () => gw.databaseUrl(), integrityEnv);
let notary: ReturnType<typeof notaryService>;
let db: pg.Pool;
let key = '';

// 64 events whose times are shuffled against their order of arrival: a window of event time holds leaves
// scattered over the tree, whose proof needs many hashes.
const BASE = Date.UTC(2026, 9, 1);
const order = Array.from({ length: 64 }, (_, i) => (i * 37) % 64);
const events = order.map((slot, i) => ({
  ...makeEvent(names.tenant, i),
  timestamp: new Date(BASE + slot * 1000).toISOString(),
}));
const window = { since: BASE + 16_000, until: BASE + 48_000 };
const inWindow = events.filter(
  (e) => Date.parse(e.timestamp) >= window.since && Date.parse(e.timestamp) < window.until,
);

interface WindowPage {
  tree_size: number;
  leaves: { event_id: string; leaf_index: number; leaf_hash: string }[];
  hashes: string[];
  checkpoint: { root_hash: string };
  page: { returned: number; next_cursor: string | null };
}

const query = `since=${new Date(window.since).toISOString()}&until=${new Date(window.until).toISOString()}`;

beforeAll(async () => {
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  notary = notaryService(names, gw.databaseUrl(), {
    ...integrityEnv,
    INTEGRITY_CHECKPOINT_INTERVAL_MS: '500',
  });
  await notary.start();
  expect((await ops(['integrity', 'keys', 'create'])).code).toBe(0);
  key = await gw.mint(names.tenant, 'audit:read');
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  // The minted key's admin.key.create and the 64 events.
  await waitFor('a checkpoint of every event', async () => {
    const res = await gw.get('/audit/integrity/checkpoints?limit=1', key);
    return (
      (JSON.parse(res.text) as { checkpoints: { tree_size: number }[] }).checkpoints[0]?.tree_size === 65
    );
  });
});
afterAll(async () => {
  await notary?.stop();
  await db?.end();
  rmSync(keyDir, { recursive: true, force: true });
});

const b64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

describe('window proofs within bounds', () => {
  it('ends a page where its proof would read more stored hashes than allowed; every page proves its leaves', async () => {
    const ids: string[] = [];
    let pages = 0;
    let cursor: string | null = null;
    do {
      const res = await gw.get(
        `/audit/integrity/proofs/window?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        key,
      );
      expect(res.status, res.text).toBe(200);
      const page = JSON.parse(res.text) as WindowPage;
      const leaves = page.leaves
        .map((l) => ({ index: l.leaf_index, hash: b64(l.leaf_hash) }))
        .sort((a, b) => a.index - b.index);
      const root = rootOfLeaves(page.tree_size, leaves, page.hashes.map(b64));
      expect(root && Buffer.from(root).toString('base64')).toBe(page.checkpoint.root_hash);
      ids.push(...page.leaves.map((l) => l.event_id));
      pages += 1;
      cursor = page.page.next_cursor;
    } while (cursor !== null);
    expect(ids.sort()).toEqual(inWindow.map((e) => e.event_id).sort());
    // Without the bound, one page of 10,000 would hold the window's 32 leaves.
    expect(pages).toBeGreaterThan(1);
  });

  it('ends a proof statement that waits too long on its own pool, leaving the pool of authentication free', async () => {
    const locker = await db.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE integrity_tiles IN ACCESS EXCLUSIVE MODE');
      const waiting = async () =>
        Number(
          (
            await db.query<{ n: string }>(
              // The gateway's own role: what its sessions run and wait for is not ours to read, their locks
              // are; only the proofs read the locked table.
              `SELECT count(DISTINCT l.pid) AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
               WHERE NOT l.granted AND a.datname = current_database() AND a.usename = $1`,
              [serviceLogin('gateway')],
            )
          ).rows[0]!.n,
        );
      const proofs = Array.from({ length: 12 }, () => gw.get(`/audit/integrity/proofs/window?${query}`, key));
      // The proofs' own pool holds four connections at most: the others wait for one, not for the lock.
      await waitFor('the proofs waiting on the lock', async () => (await waiting()) >= 4);
      expect((await gw.get('/audit/webhooks', key)).status).toBe(200);
      expect(await waiting()).toBeLessThanOrEqual(4);
      const answers = await Promise.all(proofs);
      expect(answers.every((a) => a.status === 503)).toBe(true);
      // Ended by Postgres itself, not only abandoned by the client: nothing of the gateway waits on the lock.
      expect(await waiting()).toBe(0);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
  });
});
