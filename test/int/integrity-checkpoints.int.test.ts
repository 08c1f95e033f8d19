import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEventCodec, type AuditEventRecord, decodeAuditRecord, topics } from '@audit/shared/contract';
import { rootOf } from '@audit/shared/integrity';
import { DurableProducer } from '@audit/shared/platform';
import { sampleRecord } from '@audit/shared/test-support';
import { parseVerifierKey, verifyCheckpoint } from '@audit-trail/integrity-verifier';
import { recordLeafHash } from '../../services/projector/src/domain/record-leaf.js';
import { readDeadLetters } from '../support/dead-letters.js';
import { topicEndOffset } from '../support/kafka-offsets.js';
import { uniqueNames } from '../support/names.js';
import { opsCli } from '../support/ops-cli.js';
import { migratedPostgres } from '../support/postgres.js';
import { cleanUp, notaryService, projectorService, testKafka } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import type { ServiceProcess } from '../support/service-process.js';

const names = uniqueNames('ckpt');
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;
const kafka = testKafka();
const codec = auditEventCodec();
const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
const LOG_NAME = 'audit.example.test';
const integrityEnv = { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: LOG_NAME };
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
let db: pg.Pool;
let notary: ServiceProcess;
let projector: ServiceProcess;
const run = opsCli(names, () => postgres.url, integrityEnv);
const ops = (...argv: string[]) => run([...argv, '--json']);

async function publish(records: AuditEventRecord[]) {
  const producer = new DurableProducer(kafka);
  await producer.connect();
  await producer.send({
    topic: auditTopic,
    acks: -1,
    messages: records.map((r) => ({ key: r.tenant_id, value: codec.encode(r) })),
  });
  await producer.disconnect();
}

/** The tenant's events as the audit topic has them, in its partition's order, each once: the tree's leaves. */
async function leavesFromTopic(tenant: string) {
  const count = await topicEndOffset(kafka, auditTopic);
  const records = await readDeadLetters(kafka, auditTopic, `reader-${names.id}-${Date.now()}`, count);
  const seen = new Set<string>();
  return records
    .map((r) => decodeAuditRecord(codec, r.value))
    .filter(
      (e): e is AuditEventRecord =>
        e?.tenant_id === tenant && !seen.has(e.event_id) && !!seen.add(e.event_id),
    );
}

const latest = async (tenant: string) =>
  (
    await db.query<{ tree_size: string; key_name: string; note: string }>(
      'SELECT tree_size, key_name, note FROM integrity_checkpoints WHERE tenant_id = $1 ORDER BY tree_size DESC LIMIT 1',
      [tenant],
    )
  ).rows[0];

/** A series of the notary's metrics, by its name and a label it has (every series has `service` too). */
async function metric(name: string, label = '') {
  const text = await (await fetch(`${notary.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

beforeAll(async () => {
  postgres = await migratedPostgres(names);
  db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  notary = notaryService(names, postgres.url, {
    ...integrityEnv,
    INTEGRITY_CHECKPOINT_EVERY: '100',
    INTEGRITY_CHECKPOINT_INTERVAL_MS: '1000',
  });
  // The projector appends the trees the notary signs.
  projector = projectorService(names, { PROJECTOR_TREES: 'true', DATABASE_URL: postgres.url });
  await Promise.all([notary.start(), projector.start()]);
});
afterAll(async () => {
  await notary?.stop('SIGKILL');
  await projector?.stop();
  await db?.end();
  await postgres?.drop();
  await cleanUp(names, [names.groupId]);
  rmSync(keyDir, { recursive: true, force: true });
});

describe('signed checkpoints', () => {
  const tenant = names.tenant;
  const events = (n: number) => Array.from({ length: n }, () => sampleRecord({ tenant_id: tenant }));

  it('are made by none while no key is active; the trees grow all the same', async () => {
    expect((await ops('integrity', 'keys', 'list')).json()).toEqual([]);
    await publish(events(150));
    await waitFor('the tree grown', async () => {
      const { rows } = await db.query('SELECT size FROM integrity_trees WHERE tenant_id = $1', [tenant]);
      return Number(rows[0]?.size) === 150;
    });
    await waitFor(
      'the signing key reported missing',
      async () => (await metric('notary_signing_key_ready')) === 0,
    );
    await waitFor('150 leaves waiting', async () => (await metric('notary_unsigned_leaves')) === 150);
    expect(await latest(tenant)).toBeUndefined();
  });

  it("are signed with the key ops made, over the tree of the tenant's events and the key's own audit event", async () => {
    const created = await ops('integrity', 'keys', 'create');
    expect(created.code, created.err).toBe(0);
    const change = created.json<{
      key: { name: string; verifier_key: string };
      key_file: string;
      tenants: number;
    }>();
    expect(change.key.name).toMatch(new RegExp(`^${LOG_NAME.replaceAll('.', '\\.')}-\\d{8}-[0-9a-f]{4}$`));
    expect(change.tenants).toBe(1);
    expect(statSync(change.key_file).mode & 0o777).toBe(0o600);
    const key = parseVerifierKey(change.key.verifier_key)!;

    const checkpoint = await waitFor('a checkpoint of 151 leaves', async () => {
      const c = await latest(tenant);
      return Number(c?.tree_size) === 151 && c;
    });
    const verified = verifyCheckpoint(checkpoint.note, [key]);
    expect(verified).toMatchObject({ ok: true, keyName: change.key.name });
    const leaves = await leavesFromTopic(tenant);
    expect(leaves.at(-1)).toMatchObject({
      action: 'admin.integrity.key.create',
      resource_type: 'integrity_key',
      resource_id: change.key.name,
    });
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    expect(verified.ok && { ...verified.checkpoint, root: hex(verified.checkpoint.root) }).toMatchObject({
      origin: `${LOG_NAME}/tenants/${tenant}`,
      size: 151,
      // The key's own event has salts (version 3), as every event the service writes.
      root: hex(rootOf(leaves.map(recordLeafHash))),
    });
    await waitFor('no leaf waiting', async () => (await metric('notary_unsigned_leaves')) === 0);
    expect(await metric('notary_signing_key_ready')).toBe(1);
  });

  it('refuses a second first key, unless asked to do nothing then', async () => {
    const again = await ops('integrity', 'keys', 'create');
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/is active already; "ops integrity keys rotate" replaces it/);
    const ifNone = await ops('integrity', 'keys', 'create', '--if-none');
    expect(ifNone.code, ifNone.err).toBe(0);
    expect(ifNone.json()).toMatchObject({ changed: false });
    expect((await ops('integrity', 'keys', 'create', '--name', 'bad name')).code).toBe(2);
  });

  it('after a rotation, signs with the new key; the retired one stays listed, and its checkpoints verifiable', async () => {
    const before = (await latest(tenant))!;
    const rotated = await ops('integrity', 'keys', 'rotate', '--name', `rotated-${names.id}`);
    expect(rotated.code, rotated.err).toBe(0);
    const change = rotated.json<{ key: { name: string; verifier_key: string }; replaced: string }>();
    expect(change.replaced).toBe(before.key_name);
    await publish(events(120));
    const after = await waitFor('a checkpoint of the new key', async () => {
      const c = await latest(tenant);
      return c?.key_name === change.key.name && Number(c.tree_size) === 151 + 1 + 120 && c;
    });
    const listed = (await ops('integrity', 'keys', 'list')).json<
      { name: string; status: string; verifier_key: string; private_key_here: boolean }[]
    >();
    expect(listed.map((k) => [k.name, k.status, k.private_key_here])).toEqual([
      [change.key.name, 'active', true],
      [before.key_name, 'retired', true],
    ]);
    const [newKey, oldKey] = listed.map((k) => parseVerifierKey(k.verifier_key)!);
    expect(verifyCheckpoint(after.note, [newKey!])).toMatchObject({ ok: true });
    expect(verifyCheckpoint(after.note, [oldKey!])).toEqual({ ok: false, reason: 'signed by no known key' });
    expect(verifyCheckpoint(before.note, [oldKey!, newKey!])).toMatchObject({
      ok: true,
      keyName: before.key_name,
    });
    const leaves = await leavesFromTopic(tenant);
    expect(leaves.filter((e) => e.action === 'admin.integrity.key.rotate')).toEqual([
      expect.objectContaining({ resource_id: change.key.name }),
    ]);
  });
});
