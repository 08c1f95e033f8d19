import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '@audit/shared/platform';
import { ingest, makeEvent } from '../support/events.js';
import { groupCaughtUp } from '../support/kafka-offsets.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { notaryService } from '../support/stack.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { leafKeys, storedLeaves } from '../support/tree-leaves.js';
import { waitFor } from '../support/wait-for.js';

const TOTAL = 50_000;
const BATCH = 500;
const MIN_KILLS = 5;

// Small batches and the shortest session timeout: more commits to interrupt, faster rejoin after each kill.
const {
  names,
  ingest: ingestProc,
  projector: projectorProc,
  ch,
  kafka,
  topics,
  databaseUrl,
} = pipelineFixture(
  'chaos',
  { PROJECTOR_SESSION_TIMEOUT_MS: '6000', PROJECTOR_BATCH_SIZE: '2000' },
  { trees: true },
);
const auditTopic = topics.auditEvents.name;
// The projector appends the trees, the notary signs them; both are killed: the tenant's tree must end with every
// event once, and verify against the rebuilt rows (docs/integrity.md "Verify").
const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
const integrityEnv = { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: 'audit.example.test' };
const notary = notaryService(names, databaseUrl, {
  ...integrityEnv,
  INTEGRITY_CHECKPOINT_INTERVAL_MS: '500',
});
const ops = opsCli(names, () => databaseUrl, integrityEnv);

beforeAll(async () => {
  await notary.start();
  expect((await ops(['integrity', 'keys', 'create'])).code).toBe(0);
});
afterAll(async () => {
  await notary.stop();
  rmSync(keyDir, { recursive: true, force: true });
});

describe('projector and notary killed with SIGKILL while events flow', () => {
  it('ends with exactly the acknowledged set, no duplicate visible, and a tree of it that verifies', async () => {
    const acknowledged = new Set<string>();
    let sending = true;

    const send = (async () => {
      for (let i = 0; i < TOTAL; i += BATCH) {
        const batch = Array.from({ length: BATCH }, (_, j) => makeEvent(names.tenant, i + j));
        const res = await ingest(ingestProc.url, names.ingestToken, batch);
        expect(res.status).toBe(202);
        batch.forEach((e) => acknowledged.add(e.event_id));
        await sleep(150);
      }
      sending = false;
    })();

    let kills = 0;
    while (sending || kills < MIN_KILLS) {
      await sleep(300 + Math.random() * 1500);
      await Promise.all([projectorProc.stop('SIGKILL'), notary.stop('SIGKILL')]);
      kills++;
      await Promise.all([projectorProc.start(), notary.start()]);
    }
    await send;

    await waitFor('projector caught up', () => groupCaughtUp(kafka, names.groupId, auditTopic), {
      timeoutMs: 240_000,
    });
    await waitFor('all rows', async () => (await countRows(ch, names.tenant)) >= TOTAL);
    const stored = await storedEvents(ch, names.tenant);
    const storedIds = stored.map((e) => e.event_id);
    expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);
    expect(new Set(storedIds).size).toBe(storedIds.length);
    expect(storedIds.length).toBe(TOTAL);
    expect(new Set(storedIds)).toEqual(acknowledged);
    await expectFilterIndexExact(ch, names.tenant);

    // Every acknowledged event is a leaf once (event ids are unique per tree), and a checkpoint covers them all.
    const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      await waitFor('a checkpoint of every event', async () => {
        const { rows } = await db.query(
          'SELECT max(tree_size) AS size FROM integrity_checkpoints WHERE tenant_id = $1',
          [names.tenant],
        );
        return Number(rows[0]?.size) === TOTAL;
      });
      const leaves = await storedLeaves(db, names.tenant);
      expect(leaves).toHaveLength(TOTAL);
      expect(new Set(leaves.map((l) => l.event_id))).toEqual(acknowledged);
      const keys = await leafKeys(db, names.tenant);
      expect(leaves.every((l) => keys.get(l.event_id) === l.leaf_index)).toBe(true);
      expect(keys.size).toBe(TOTAL);
    } finally {
      await db.end();
    }
    const verified = await ops(['integrity', 'verify', '--tenant', names.tenant, '--json']);
    expect(verified.json()).toMatchObject({ ok: true, rows: TOTAL, leaves: TOTAL, findings: [] });
    expect(verified.code).toBe(0);
  });
});
