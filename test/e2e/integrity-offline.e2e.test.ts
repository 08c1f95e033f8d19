import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSigningKey, rootOf, signCheckpoint } from '@audit/shared/integrity';
import {
  verifyCommand,
  type Finding,
  type ListedCheckpoint,
  type TrailCheck,
  type WindowProof,
} from '@audit-trail/integrity-verifier';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { referencePython, runWith, writeReferenceModule } from '../support/python-reference.js';
import { exportDir, exporterService, notaryService } from '../support/stack.js';
import { countRows } from '../support/stored-events.js';
import { tamperWithRows } from '../support/tampering.js';
import { waitFor } from '../support/wait-for.js';

// An auditor's check of an export with nothing but the API's answers: the export, the window proof it names, the
// checkpoints and the keys, written to files and checked by the package's verifier command and by the Python
// reference of docs/integrity.md. The tampering is done to ClickHouse and Postgres directly, as by someone with
// database access; both verifiers must name each change.
const { names, ingest: ingestProc, ch, databaseUrl } = pipelineFixture('ioffline', {}, { trees: true });
const gw = gatewayFixture(names, { env: { EXPORT_DIR: exportDir(names) }, databaseUrl });
const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
const dir = mkdtempSync(join(tmpdir(), 'integrity-offline-'));
const LOG = 'audit.example.test';
const integrityEnv = { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: LOG };
const ops = opsCli(names, () => gw.databaseUrl(), integrityEnv);
const tenant = names.tenant;
const BASE = Date.now() - 3_600_000;
const events = Array.from({ length: 12 }, (_, i) => makeEvent(tenant, i, BASE));
const window = { since: new Date(BASE).toISOString(), until: new Date(BASE + 12).toISOString() };
const CHECK_TRAIL = fileURLToPath(new URL('../support/integrity-reference/check_trail.py', import.meta.url));
let notary: ReturnType<typeof notaryService>;
let db: pg.Pool;
let key = '';
let python = '';

beforeAll(async () => {
  notary = notaryService(names, gw.databaseUrl(), {
    ...integrityEnv,
    INTEGRITY_CHECKPOINT_INTERVAL_MS: '500',
  });
  await notary.start();
  expect((await ops(['integrity', 'keys', 'create'])).code).toBe(0);
  key = await gw.mint(tenant, 'audit:read,audit:export');
  db = new pg.Pool({ connectionString: gw.databaseUrl(), max: 2 });
  writeReferenceModule(dir);
  python = await referencePython();
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  // The key's creation is an audit event of the tenant's too: 13 in all, 12 of them in the window.
  await waitFor('the events stored', async () => (await countRows(ch, tenant)) === events.length + 1);
  await waitFor('a checkpoint of them all', async () => {
    const { rows } = await db.query(
      'SELECT max(tree_size) AS size FROM integrity_checkpoints WHERE tenant_id = $1',
      [tenant],
    );
    return Number(rows[0]?.size) >= events.length + 1;
  });
});
afterAll(async () => {
  await notary?.stop();
  await db?.end();
  rmSync(keyDir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  rmSync(exportDir(names), { recursive: true, force: true });
});

async function getJson<T>(path: string): Promise<T> {
  const res = await gw.get(path, key);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text) as T;
}

/** Every page of a paged answer, following `next_cursor`. */
async function allPages<T extends { page: { next_cursor: string | null } }>(path: string): Promise<T[]> {
  const pages: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: T = await getJson<T>(cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path);
    pages.push(page);
    cursor = page.page.next_cursor;
  } while (cursor);
  return pages;
}

/** What an auditor fetches for the window, as files: the export, its window proof, the checkpoints, the keys. */
async function fetchBundle() {
  // The export names a checkpoint made at least 10 s before it (docs/api.md): one of the whole window.
  await waitFor('a checkpoint of the window that an export names', async () => {
    const { rows } = await db.query(
      'SELECT min(made_at) AS made FROM integrity_checkpoints WHERE tenant_id = $1 AND tree_size >= $2',
      [tenant, events.length + 1],
    );
    return rows[0]?.made !== null && Date.now() - Number(rows[0]?.made) > 10_500;
  });
  const exported = await gw.send('POST', '/audit/export', key, window);
  expect(exported.status, exported.text).toBe(200);
  const size = exported.headers.get('x-integrity-tree-size');
  expect(size).toMatch(/^\d+$/);
  // Pages of 5 leaves: each page a proof of its own; the cursor keeps the first page's checkpoint.
  const query = `since=${window.since}&until=${window.until}&tree_size=${size}&limit=5`;
  const proofs = await allPages<WindowProof & { page: { next_cursor: string | null } }>(
    `/audit/integrity/proofs/window?${query}`,
  );
  const checkpoints = await allPages<{
    checkpoints: ListedCheckpoint[];
    page: { next_cursor: string | null };
  }>('/audit/integrity/checkpoints?limit=2');
  const keys = await getJson<{ keys: { verifier_key: string }[] }>('/audit/integrity/keys');
  const files = {
    export: join(dir, 'export.json'),
    keys: join(dir, 'keys.json'),
    proofs: proofs.map((_, i) => join(dir, `window-${i}.json`)),
    checkpoints: checkpoints.map((_, i) => join(dir, `checkpoints-${i}.json`)),
  };
  writeFileSync(files.export, exported.text);
  writeFileSync(files.keys, JSON.stringify(keys));
  proofs.forEach((p, i) => writeFileSync(files.proofs[i]!, JSON.stringify(p)));
  checkpoints.forEach((p, i) => writeFileSync(files.checkpoints[i]!, JSON.stringify(p)));
  const body = JSON.parse(exported.text) as { events: unknown[]; truncated: boolean };
  return { files, body, proofs, checkpoints: checkpoints.flatMap((p) => p.checkpoints), keys };
}

/** Both verifiers over the same files: the command's exit status and report, and the Python reference's findings. */
async function verifyBoth() {
  const b = await fetchBundle();
  let out = '';
  const code = await verifyCommand(
    [
      '--keys',
      b.files.keys,
      ...b.files.checkpoints.flatMap((f) => ['--checkpoints', f]),
      ...b.files.proofs.flatMap((f) => ['--proof', f]),
      '--export',
      b.files.export,
      '--origin',
      `${LOG}/tenants/${tenant}`,
      '--json',
    ],
    { out: (t) => (out += t), err: (t) => (out += t) },
  );
  const python_ = await runWith(
    python,
    [CHECK_TRAIL, dir],
    JSON.stringify({
      keys: b.keys.keys.map((k) => k.verifier_key),
      checkpoints: b.checkpoints,
      proofs: b.proofs,
      rows: b.body.events,
      complete: true,
      truncated: b.body.truncated,
    }),
  );
  return {
    code,
    report: JSON.parse(out) as TrailCheck,
    python: JSON.parse(python_) as Record<string, unknown>[],
  };
}

/** What the Python reference reports of a finding: its kind and what it names (no wording). */
const named = (f: Finding) => {
  const { problem: _problem, ...rest } = f as Finding & { problem?: string };
  return rest;
};

describe('offline verification of an export (TypeScript command and Python reference)', () => {
  it('verifies everything when nothing was touched (the negative control)', async () => {
    const { code, report, python: py } = await verifyBoth();
    expect(report).toMatchObject({ ok: true, rows: 12, leaves: 12, findings: [] });
    expect(report.checkpoints).toBeGreaterThanOrEqual(1);
    // Without a tree size, later pages stay with the checkpoint of the first, even when a newer one is signed.
    const first = await getJson<WindowProof & { page: { next_cursor: string } }>(
      `/audit/integrity/proofs/window?since=${window.since}&until=${window.until}&limit=5`,
    );
    const cursor = encodeURIComponent(first.page.next_cursor);
    const second = await getJson<WindowProof>(
      `/audit/integrity/proofs/window?since=${window.since}&until=${window.until}&limit=5&cursor=${cursor}`,
    );
    expect(second.tree_size).toBe(first.tree_size);
    const other = await gw.get(
      `/audit/integrity/proofs/window?since=${window.since}&until=${window.until}&limit=5&cursor=${cursor}&tree_size=${first.tree_size + 1}`,
      key,
    );
    expect(other.status).toBe(422);
    expect(report.links).toBe(report.checkpoints - 1);
    expect(code).toBe(0);
    expect(py).toEqual([]);
  });

  it("verifies an export job's NDJSON and CSV files against the checkpoint its manifest names", async () => {
    const exporter = exporterService(names, gw.databaseUrl());
    await exporter.start();
    try {
      for (const format of ['ndjson', 'csv'] as const) {
        const created = await gw.send('POST', '/audit/exports', key, { format, ...window });
        expect(created.status, created.text).toBe(202);
        const { id } = JSON.parse(created.text) as { id: string };
        const job = await waitFor(`the ${format} job done`, async () => {
          const view = JSON.parse((await gw.get(`/audit/exports/${id}`, key)).text) as {
            status: string;
            manifest: { integrity_tree_size: number | null } | null;
          };
          return view.status !== 'queued' && view.status !== 'running' && view;
        });
        expect(job.status).toBe('succeeded');
        const size = job.manifest!.integrity_tree_size;
        expect(size).toBeGreaterThanOrEqual(events.length);
        const file = await fetch(`${gw.url()}/api/v2/public/audit/exports/${id}/download`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(file.status).toBe(200);
        const b = await fetchBundle();
        const proof = await getJson<WindowProof>(
          `/audit/integrity/proofs/window?since=${window.since}&until=${window.until}&tree_size=${size}`,
        );
        const gz = Buffer.from(await file.arrayBuffer());
        writeFileSync(join(dir, `job.${format}.gz`), gz);
        writeFileSync(join(dir, 'job-window.json'), JSON.stringify(proof));
        const verify = async (path: string) => {
          let out = '';
          const args = ['--keys', b.files.keys, ...b.files.checkpoints.flatMap((f) => ['--checkpoints', f])];
          const more = ['--proof', join(dir, 'job-window.json'), '--export', path, '--json'];
          const code = await verifyCommand([...args, ...more], {
            out: (t) => (out += t),
            err: (t) => (out += t),
          });
          return { code, report: JSON.parse(out) as TrailCheck };
        };
        const result = await verify(join(dir, `job.${format}.gz`));
        expect(result.report).toMatchObject({ ok: true, rows: 12, leaves: 12, findings: [] });
        expect(result.code).toBe(0);
        if (format !== 'csv') continue;
        // The CSV file read by the Python reference too, as it is and with one event's resource changed.
        const reference = (csv: string) =>
          runWith(
            python,
            [CHECK_TRAIL, dir],
            JSON.stringify({
              keys: b.keys.keys.map((k) => k.verifier_key),
              checkpoints: b.checkpoints,
              proofs: [proof],
              csv,
              complete: true,
              truncated: false,
            }),
          ).then((text) => JSON.parse(text) as Record<string, unknown>[]);
        const csv = gunzipSync(gz).toString('utf8');
        expect(await reference(csv)).toEqual([]);
        const changed = events[3]!;
        const tampered = csv.replace(`,${changed.resource_id},`, `,${changed.resource_id}-x,`);
        expect(tampered).not.toBe(csv);
        writeFileSync(join(dir, 'job-tampered.csv.gz'), gzipSync(tampered));
        const leaf = proof.leaves.find((l) => l.event_id === changed.event_id)!.leaf_index;
        const altered = { kind: 'altered', event_id: changed.event_id, leaf_index: leaf };
        const caught = await verify(join(dir, 'job-tampered.csv.gz'));
        expect(caught.code).toBe(1);
        expect(caught.report.findings).toEqual([altered]);
        expect(await reference(tampered)).toEqual([altered]);
      }
    } finally {
      await exporter.stop();
    }
  });

  it('names a changed field, a deleted row, a forged row and two rows whose order was swapped', async () => {
    const [changed, deleted, a, b] = [events[1]!, events[4]!, events[6]!, events[7]!];
    const leafOf = async (id: string) =>
      Number(
        (
          await db.query(
            'SELECT leaf_index FROM integrity_leaf_events WHERE tree_id = (SELECT tree_id FROM integrity_trees WHERE tenant_id = $1) AND event_id = $2',
            [tenant, id],
          )
        ).rows[0].leaf_index,
      );
    const forged = '00000000-0000-4000-8000-000000000001';
    const ids = {
      changed: changed.event_id,
      deleted: deleted.event_id,
      a: a.event_id,
      b: b.event_id,
      forged,
    };
    await tamperWithRows(ch, tenant, ids, BASE + 3);
    const expected = [
      { kind: 'altered', event_id: changed.event_id, leaf_index: await leafOf(changed.event_id) },
      { kind: 'missing', event_id: deleted.event_id, leaf_index: await leafOf(deleted.event_id) },
      { kind: 'altered', event_id: a.event_id, leaf_index: await leafOf(a.event_id) },
      { kind: 'altered', event_id: b.event_id, leaf_index: await leafOf(b.event_id) },
      { kind: 'forged', event_id: forged },
    ];
    const { code, report, python: py } = await verifyBoth();
    expect(code).toBe(1);
    expect(report.findings).toEqual(expect.arrayContaining(expected));
    expect(report.findings).toHaveLength(5);
    expect(py).toEqual(expect.arrayContaining(expected));
    expect(py).toHaveLength(5);
  });

  it('names a checkpoint with a bad signature and one that forks from the tree', async () => {
    // Each export is an audit event of the tenant's, so checkpoints beyond the 12 events follow: the fork goes
    // below the 12, and the signature is broken on a checkpoint above the one that links to the fork.
    const sizes = await waitFor('three checkpoints', async () => {
      const { rows } = await db.query<{ s: string }>(
        'SELECT tree_size AS s FROM integrity_checkpoints WHERE tenant_id = $1 ORDER BY 1',
        [tenant],
      );
      return rows.length >= 3 && rows.map((r) => Number(r.s));
    });
    const latest = (
      await db.query<{ tree_size: string; note: string; key_name: string }>(
        'SELECT tree_size, note, key_name FROM integrity_checkpoints WHERE tenant_id = $1 ORDER BY tree_size DESC LIMIT 1',
        [tenant],
      )
    ).rows[0]!;
    await db.query('UPDATE integrity_checkpoints SET note = $2 WHERE tenant_id = $1 AND tree_size = $3', [
      tenant,
      latest.note.replace(/\ntime (\d)/, '\ntime 1'),
      latest.tree_size,
    ]);
    // A fork, signed with the real key (someone who took its file): a tree of a size the tenant's has, whose leaves
    // are not the tenant's. The checkpoint listed after it links to it, and that link cannot be proven.
    const privateKey = (await readSigningKey(keyDir, latest.key_name))!;
    const forkSize = [...Array(11).keys()].map((i) => i + 1).find((n) => !sizes.includes(n))!;
    const after = sizes.find((s) => s > forkSize)!;
    const root = rootOf(Array.from({ length: forkSize }, (_, i) => new Uint8Array(32).fill(i)));
    const note = signCheckpoint(
      { origin: `${LOG}/tenants/${tenant}`, size: forkSize, root, time: Date.now() },
      { name: latest.key_name, privateKey },
    );
    await db.query(
      `INSERT INTO integrity_checkpoints (tenant_id, tree_size, root_hash, made_at, key_name, note)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [tenant, forkSize, Buffer.from(root), Date.now(), latest.key_name, note],
    );
    const { code, report, python: py } = await verifyBoth();
    expect(code).toBe(1);
    const expected: Finding[] = [
      { kind: 'checkpoint', tree_size: Number(latest.tree_size), problem: 'bad signature' },
      {
        kind: 'checkpoint',
        tree_size: after,
        problem: `not consistent with the checkpoint of ${forkSize} leaves: one of the two forks`,
      },
    ];
    expect(report.findings).toEqual(expect.arrayContaining(expected));
    expect(py).toEqual(expect.arrayContaining(expected.map(named)));
  });
});
