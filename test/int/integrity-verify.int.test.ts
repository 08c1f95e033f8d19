import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawPublicKey, readSigningKey, rootOf, signCheckpoint, verifierKeyOf } from '@audit/shared/integrity';
import { ingest, makeEvent } from '../support/events.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { notaryService } from '../support/stack.js';
import { countRows } from '../support/stored-events.js';
import { tamperWithRows } from '../support/tampering.js';
import { waitFor } from '../support/wait-for.js';

// Ingest, projector (appending the trees) and notary as processes; the tampering done to ClickHouse and Postgres directly, as someone
// with database access would; `ops integrity verify` must name each change.
const { names, ingest: ingestProc, ch, databaseUrl } = pipelineFixture('iverify', {}, { trees: true });
const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
const LOG = 'audit.example.test';
let db: pg.Pool;
let notary: ReturnType<typeof notaryService>;
const ops = opsCli(names, () => databaseUrl, { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: LOG });
const tenant = names.tenant;
const events = Array.from({ length: 12 }, (_, i) => makeEvent(tenant, i));

interface Report {
  ok: boolean;
  rows: number;
  leaves: number;
  checkpoints: number;
  findings: Record<string, unknown>[];
}
const verify = async () => {
  const res = await ops(['integrity', 'verify', '--tenant', tenant, '--json']);
  return { code: res.code, report: res.json<Report>() };
};
beforeAll(async () => {
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  notary = notaryService(names, databaseUrl, {
    INTEGRITY_KEY_DIR: keyDir,
    INTEGRITY_LOG_NAME: LOG,
    INTEGRITY_CHECKPOINT_INTERVAL_MS: '500',
  });
  await notary.start();
  expect((await ops(['integrity', 'keys', 'create'])).code).toBe(0);
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  await waitFor('the events stored', async () => (await countRows(ch, tenant)) === events.length);
  await waitFor('a checkpoint of them all', async () => {
    const { rows } = await db.query(
      'SELECT max(tree_size) AS size FROM integrity_checkpoints WHERE tenant_id = $1',
      [tenant],
    );
    return Number(rows[0]?.size) === events.length;
  });
  await notary.stop();
});
afterAll(async () => {
  await notary?.stop();
  await db?.end();
  rmSync(keyDir, { recursive: true, force: true });
});

describe('ops integrity verify', () => {
  it('finds nothing wrong when nothing was touched (the negative control)', async () => {
    const { code, report } = await verify();
    expect(report).toMatchObject({
      ok: true,
      rows: 12,
      leaves: 12,
      keys: { source: 'key directory', trusted: 1 },
      findings: [],
    });
    expect(report.checkpoints).toBeGreaterThanOrEqual(1);
    expect(code).toBe(0);
  });

  it('names a changed field, a deleted row, a forged row and two rows whose order was swapped', async () => {
    const [changed, deleted, a, b] = [events[1]!, events[4]!, events[6]!, events[7]!];
    const forged = '00000000-0000-4000-8000-000000000001';
    const ids = {
      changed: changed.event_id,
      deleted: deleted.event_id,
      a: a.event_id,
      b: b.event_id,
      forged,
    };
    await tamperWithRows(ch, tenant, ids, 1790000000000);
    const { code, report } = await verify();
    expect(code).toBe(1);
    expect(report.findings).toEqual(
      expect.arrayContaining([
        { kind: 'altered', event_id: changed.event_id, leaf_index: 1 },
        { kind: 'missing', event_id: deleted.event_id, leaf_index: 4 },
        { kind: 'altered', event_id: a.event_id, leaf_index: 6 },
        { kind: 'altered', event_id: b.event_id, leaf_index: 7 },
        { kind: 'forged', event_id: forged },
      ]),
    );
    expect(report.findings).toHaveLength(5);
  });

  it('catches a key row added to the database and the checkpoint it signed, against the pinned keys', async () => {
    const { rows } = await db.query<{ tree_size: string; note: string; key_name: string; root_hash: Buffer }>(
      `SELECT tree_size, note, key_name, root_hash FROM integrity_checkpoints WHERE tenant_id = $1
       ORDER BY tree_size DESC LIMIT 1`,
      [tenant],
    );
    const real = rows[0]!;
    // Someone with the database's credentials: a "retired" key of their own, and the checkpoint signed again with
    // it over the same tree (as they would over a tree they rewrote).
    const forged = { name: 'forged.example-1', privateKey: generateKeyPairSync('ed25519').privateKey };
    const note = signCheckpoint(
      {
        origin: `${LOG}/tenants/${tenant}`,
        size: Number(real.tree_size),
        root: real.root_hash,
        time: Date.now(),
      },
      forged,
    );
    await db.query(
      `INSERT INTO integrity_keys (name, public_key, verifier_key, status, created_by, retired_at)
       VALUES ($1, $2, $3, 'retired', 'operator:someone', now())`,
      [forged.name, Buffer.from(rawPublicKey(forged.privateKey)), verifierKeyOf(forged)],
    );
    const setNote = (text: string, key: string) =>
      db.query(
        'UPDATE integrity_checkpoints SET note = $3, key_name = $4 WHERE tenant_id = $1 AND tree_size = $2',
        [tenant, real.tree_size, text, key],
      );
    await setNote(note, forged.name);
    try {
      const keysFile = join(keyDir, 'pinned-keys.txt');
      writeFileSync(
        keysFile,
        `${(await ops(['integrity', 'keys', 'list', '--json'])).json<{ verifier_key: string; name: string }[]>().find((k) => k.name !== forged.name)!.verifier_key}\n`,
      );
      const expected = [
        { kind: 'key', name: forged.name, problem: 'stored, but not in the key directory' },
        { kind: 'checkpoint', tree_size: Number(real.tree_size), problem: 'signed by no known key' },
      ];
      const pinned = await verify();
      expect(pinned.code).toBe(1);
      expect(pinned.report.findings).toEqual(expect.arrayContaining(expected));
      const fromFile = await ops(['integrity', 'verify', '--tenant', tenant, '--keys', keysFile, '--json']);
      expect(fromFile.json<Report>().findings).toEqual(
        expect.arrayContaining([{ ...expected[0], problem: 'stored, but not in the file' }, expected[1]]),
      );
      // With only the database's word, the forgery passes: said loudly.
      const empty = mkdtempSync(join(tmpdir(), 'no-keys-'));
      const unpinned = await ops(['integrity', 'verify', '--tenant', tenant, '--json'], {
        INTEGRITY_KEY_DIR: empty,
      });
      rmSync(empty, { recursive: true });
      expect(unpinned.json<Report>()).toMatchObject({ keys: { source: 'database', trusted: 2 } });
      expect(unpinned.json<Report>().findings.filter((f) => f.kind === 'checkpoint')).toEqual([]);
      expect(unpinned.err).toContain(
        'WARNING: the checkpoints are checked against the keys the database holds',
      );
    } finally {
      await setNote(real.note, real.key_name);
      await db.query('DELETE FROM integrity_keys WHERE name = $1', [forged.name]);
    }
  });

  it('names a stored key that is no verifier key instead of failing', async () => {
    // A name of the writer's choosing, escape sequence included: printed escaped, never to the terminal raw.
    const name = 'malformed\u001b[2J-1';
    await db.query(
      `INSERT INTO integrity_keys (name, public_key, verifier_key, status, created_by, retired_at)
       VALUES ($1, $2, 'not a verifier key', 'retired', 'operator:someone', now())`,
      [name, Buffer.alloc(32, 7)],
    );
    try {
      for (const env of [{}, { INTEGRITY_KEY_DIR: join(keyDir, 'absent') }]) {
        const res = await ops(['integrity', 'verify', '--tenant', tenant, '--json'], env);
        expect(res.code, res.err).toBe(1);
        expect(res.json<Report>().findings).toContainEqual({
          kind: 'key',
          name,
          problem: 'its stored verifier key is malformed',
        });
      }
      const text = await ops(['integrity', 'verify', '--tenant', tenant]);
      expect(text.out).toContain('key malformed\\u001b[2J-1: its stored verifier key is malformed');
      expect(text.out.includes('\u001b')).toBe(false);
    } finally {
      await db.query('DELETE FROM integrity_keys WHERE name = $1', [name]);
    }
  });

  it('names a checkpoint with a bad signature and one that forks from the tree', async () => {
    const { rows } = await db.query<{ tree_size: string; note: string; key_name: string }>(
      'SELECT tree_size, note, key_name FROM integrity_checkpoints WHERE tenant_id = $1 ORDER BY tree_size DESC LIMIT 1',
      [tenant],
    );
    const latest = rows[0]!;
    await db.query('UPDATE integrity_checkpoints SET note = $2 WHERE tenant_id = $1 AND tree_size = $3', [
      tenant,
      latest.note.replace(/\ntime (\d)/, '\ntime 1'),
      latest.tree_size,
    ]);
    // A fork, signed with the real key (someone who took its file): a tree of a size the tenant's has, whose leaves
    // are not the tenant's; and one of more leaves than the tree has.
    const privateKey = (await readSigningKey(keyDir, latest.key_name))!;
    const sizes = new Set(
      (
        await db.query<{ s: string }>(
          'SELECT tree_size AS s FROM integrity_checkpoints WHERE tenant_id = $1',
          [tenant],
        )
      ).rows.map((r) => Number(r.s)),
    );
    const forkSize = [...Array(11).keys()].map((i) => i + 1).find((n) => !sizes.has(n))!;
    for (const size of [forkSize, 13]) {
      const root = rootOf(Array.from({ length: size }, (_, i) => new Uint8Array(32).fill(i)));
      const note = signCheckpoint(
        { origin: `${LOG}/tenants/${tenant}`, size, root, time: Date.now() },
        { name: latest.key_name, privateKey },
      );
      await db.query(
        `INSERT INTO integrity_checkpoints (tenant_id, tree_size, root_hash, made_at, key_name, note)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [tenant, size, Buffer.from(root), Date.now(), latest.key_name, note],
      );
    }
    const { report } = await verify();
    expect(report.findings).toEqual(
      expect.arrayContaining([
        { kind: 'checkpoint', tree_size: Number(latest.tree_size), problem: 'bad signature' },
        {
          kind: 'checkpoint',
          tree_size: forkSize,
          problem: 'its root is not the root of the tree: it forks from the leaves',
        },
        { kind: 'checkpoint', tree_size: 13, problem: 'the tree has only 12 leaves' },
      ]),
    );
  });

  it('stops with an error naming the tile when two tiles overlap', async () => {
    const tree = '(SELECT tree_id FROM integrity_trees WHERE tenant_id = $1)';
    const { rows } = await db.query<{ first_index: string }>(
      `SELECT first_index FROM integrity_tiles WHERE tree_id = ${tree} AND length(leaf_hashes) >= 64
       ORDER BY first_index LIMIT 1`,
      [tenant],
    );
    expect(rows, 'a tile of two leaves or more').toHaveLength(1);
    const at = Number(rows[0]!.first_index) + 1;
    // A copy of the tile from its second leaf on, as a tile of its own: every leaf still has its hash (the event-id
    // pass finds nothing), but the leaves from the second on are stored twice.
    await db.query(
      `INSERT INTO integrity_tiles (tree_id, first_index, leaf_hashes, event_ids, times, min_ts, max_ts)
       SELECT tree_id, $2, substring(leaf_hashes FROM 33), substring(event_ids FROM 17), substring(times FROM 9),
         min_ts, max_ts
       FROM integrity_tiles WHERE tree_id = ${tree} AND first_index = $3`,
      [tenant, at, at - 1],
    );
    const res = await ops(['integrity', 'verify', '--tenant', tenant, '--json']);
    expect(res.code).toBe(1);
    expect(res.err).toContain(
      `the tree store is damaged: tenant ${tenant}: a tile begins at leaf ${at}, not`,
    );
    await db.query(`DELETE FROM integrity_tiles WHERE tree_id = ${tree} AND first_index = $2`, [tenant, at]);
  });

  it('stops with an error naming the leaf when the tree store itself lost a tile', async () => {
    await db.query(
      `DELETE FROM integrity_tiles WHERE tree_id = (SELECT tree_id FROM integrity_trees WHERE tenant_id = $1)
         AND first_index <= 5 AND first_index + length(leaf_hashes) / 32 > 5`,
      [tenant],
    );
    const res = await ops(['integrity', 'verify', '--tenant', tenant, '--json']);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(
      /the tree store is damaged: .*the hash of leaf \d+ \(event [0-9a-f-]{36}\) is in no tile/,
    );
    expect(res.out).toBe('');
  });
});
