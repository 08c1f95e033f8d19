import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEventRecord, loadSchemaVersions, singleObjectCodec } from '@audit/shared/contract';
import { DurableProducer } from '@audit/shared/platform';
import { filterIndexState, projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { localTablesOf, notaryService } from '../support/stack.js';
import { byVolume } from '../support/volume.js';
import { waitFor } from '../support/wait-for.js';

const TENANTS = 20;
const PER_TENANT = byVolume(5000, 1000);
// Of each tenant's events, a fifth written as the contract's version 1, the rest through ingest in four requests.
const BATCH = PER_TENANT / 5;
const fx = pipelineFixture('replayproj', {}, { trees: true });
const { names } = fx;
const gw = gatewayFixture(names, {
  env: { RATE_LIMIT_WRITE_PER_MIN: '100000' },
  databaseUrl: fx.databaseUrl,
});
const tenants = Array.from({ length: TENANTS }, (_, i) => `${names.tenant}-${i}`);
const acked = new Map<string, Set<string>>(tenants.map((t) => [t, new Set()]));
const keys = new Map<string, string>();
// The live projection appends the tenants' trees all along, a replay never: it must rebuild rows that verify
// against them, and leave every checkpoint as it was (docs/integrity.md "Who appends").
const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
const integrityEnv = { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: 'audit.example.test' };
const ops = opsCli(names, () => gw.databaseUrl(), integrityEnv);
let notary: ReturnType<typeof notaryService>;

beforeAll(async () => {
  notary = notaryService(names, gw.databaseUrl(), {
    ...integrityEnv,
    INTEGRITY_CHECKPOINT_INTERVAL_MS: '500',
  });
  await notary.start();
  expect((await ops(['integrity', 'keys', 'create'])).code).toBe(0);
});
afterAll(async () => {
  await notary?.stop();
  rmSync(keyDir, { recursive: true, force: true });
});

/** How many events the projector gave its trees that were leaves already (its metrics). */
async function knownLeaves(): Promise<number> {
  const text = await (await fetch(`${fx.projector.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('projector_tree_events_total{') && l.includes('"known"'));
  return Number(line?.split(' ').pop());
}

/** Every checkpoint of every tenant: size and root. */
async function checkpointRoots(): Promise<string[]> {
  const db = new pg.Pool({ connectionString: gw.databaseUrl(), max: 1 });
  try {
    const { rows } = await db.query<{ c: string }>(
      `SELECT tenant_id || ' ' || tree_size || ' ' || encode(root_hash, 'hex') AS c FROM integrity_checkpoints ORDER BY 1`,
    );
    return rows.map((r) => r.c);
  } finally {
    await db.end();
  }
}

/**
 * Every tenant's rows in the live generation against its tree and checkpoints, once the notary and the
 * projector have both caught up with the last reads' own audit events.
 */
async function expectTreesVerify() {
  for (const t of tenants) {
    await waitFor(`${t}'s rows verified against its tree`, async () => {
      const res = await ops(['integrity', 'verify', '--tenant', t, '--json']);
      return res.code === 0 && res.json<{ ok: boolean }>().ok;
    });
  }
}

/** Events through ingest: records of the contract's newest version, half of them naming a patient. */
async function send(tenant: string, from: number, n: number) {
  const events = Array.from({ length: n }, (_, i) => ({
    ...makeEvent(tenant, from + i),
    patient_id: (from + i) % 2 ? `p-${(from + i) % 50}` : '',
  }));
  const res = await ingest(fx.ingest.url, names.ingestToken, events);
  expect(res.status).toBe(202);
  for (const e of events) acked.get(tenant)!.add(e.event_id);
}

/** Records as a producer of the contract's version 1 writes them, straight to the audit topic. */
async function sendVersion1(tenant: string, n: number) {
  const v1 = loadSchemaVersions('audit-event')[0]!;
  const codec = singleObjectCodec<AuditEventRecord>([v1], v1);
  const records = Array.from({ length: n }, (_, i) =>
    sampleRecord({ tenant_id: tenant, timestamp: Date.now() - 7_200_000 + i }),
  );
  const producer = new DurableProducer(fx.kafka);
  await producer.connect();
  try {
    await producer.send({
      topic: fx.topics.auditEvents.name,
      messages: records.map((r) => ({ key: tenant, value: codec.encode(r) })),
    });
  } finally {
    await producer.disconnect();
  }
  for (const r of records) acked.get(tenant)!.add(r.event_id);
}

/** One export of the tenant: its test events (not the audit trail of the test's own key and exports), and dups. */
async function read(tenant: string) {
  const res = await gw.send('POST', '/audit/export?format=json', keys.get(tenant), {});
  expect(res.status, res.text).toBe(200);
  const body = JSON.parse(res.text) as {
    events: { event_id: string; resource_type: string }[];
    truncated: boolean;
  };
  expect(body.truncated).toBe(false);
  const ids = body.events
    .filter((e) => !['api_key', 'audit_export'].includes(e.resource_type))
    .map((e) => e.event_id);
  return { ids: new Set(ids), duplicates: ids.length - new Set(ids).size };
}

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

describe('ops replay projection', () => {
  it('rebuilds the projection from the topic while every read stays complete and duplicate-free', async () => {
    for (const t of tenants) keys.set(t, await gw.mint(t, 'audit:read,audit:export'));
    // 100,000 events (20,000 at the reduced volume): of each tenant a fifth of the contract's version 1 and the
    // rest through ingest, four requests at a time. The replay reads both from the topic (docs/ingest.md
    // "Disclosures").
    for (const t of tenants) await sendVersion1(t, BATCH);
    const requests = tenants.flatMap((t) => Array.from({ length: 4 }, (_, i) => [t, i * BATCH] as const));
    for (let i = 0; i < requests.length; i += 4) {
      await Promise.all(requests.slice(i, i + 4).map(([t, from]) => send(t, from, BATCH)));
    }
    for (const t of tenants) {
      await waitFor(`${t} projected`, async () => (await read(t)).ids.size === PER_TENANT);
    }

    let replaying = true;
    const reads: { tenant: string; complete: boolean; duplicates: number }[] = [];
    // Reads all through the replay: each must hold every event acknowledged (and projected) before it began.
    const reader = (async () => {
      for (let i = 0; replaying; i++) {
        const tenant = tenants[i % TENANTS]!;
        const expected = new Set(acked.get(tenant));
        const got = await read(tenant);
        reads.push({
          tenant,
          complete: [...expected].every((id) => got.ids.has(id)),
          duplicates: got.duplicates,
        });
      }
    })();
    // Writes go on too, into one tenant (held for a moment during the switch, never lost): ten events a step at
    // first, then one, so that however long the replay takes (minutes on the cluster tier) the tenant stays
    // within one export's cap (EXPORT_CAP, 10,000), which its reads take whole.
    const writer = (async () => {
      for (let i = 0, sent = 0; replaying && sent < 4000; i++) {
        const n = i < 200 ? 10 : 1;
        await send(tenants[0]!, PER_TENANT + sent, n);
        sent += n;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const roots = await checkpointRoots();
    const knownBefore = await knownLeaves();
    const res = await opsCli(names, () => gw.databaseUrl())([
      'replay',
      'projection',
      '--drop-old-after',
      '5',
      '--json',
    ]);
    replaying = false;
    await Promise.all([reader, writer]);
    expect(res.code, res.err).toBe(0);
    const report = res.json<Record<string, number>>();
    expect(report).toMatchObject({ generation: 2, previous: 1 });
    expect(report.records_replayed).toBeGreaterThanOrEqual(TENANTS * PER_TENANT);

    // The reader ran until the replay ended; how many reads fit depends on the engine's speed (fewer on chdb,
    // which runs one statement at a time), so only a floor that shows reads overlapped the replay is asked.
    expect(reads.length).toBeGreaterThanOrEqual(10);
    // Tenant 0's reads may begin before the trickle's newest events are projected: only the others are exact.
    const exact = reads.filter((r) => r.tenant !== tenants[0]);
    expect(exact.filter((r) => !r.complete)).toEqual([]);
    expect(reads.filter((r) => r.duplicates > 0)).toEqual([]);

    // After: every tenant's set is exactly what was acknowledged, from the new generation.
    for (const t of tenants) {
      await waitFor(`${t} complete after the replay`, async () =>
        sameSet((await read(t)).ids, acked.get(t)!),
      );
      expect((await read(t)).duplicates).toBe(0);
    }
    const tables = await fx.ch.query({
      query: `SELECT name FROM system.tables WHERE database = '${names.database}' AND name LIKE 'audit_event%' ORDER BY name`,
      format: 'JSONEachRow',
    });
    // The old generation went once the command's grace was over, before it returned.
    const g2 = projectionTables(2);
    const sharded = [g2.buckets, g2.ids, g2.index, g2.events];
    expect((await tables.json<{ name: string }>()).map((r) => r.name)).toEqual(
      [...sharded, ...localTablesOf(sharded), g2.bucketsView, g2.idsView, g2.indexView].sort(),
    );
    // The rebuilt generation's filter index is complete from its start, and exact.
    expect(await filterIndexState(fx.ch).ready(2)).toBe(true);
    for (const t of tenants) await expectFilterIndexExact(fx.ch, t, 2);
    // The trees were not touched by the replay, and the rebuilt rows are exactly their leaves. A replay that
    // appended would give the trees every one of its events again (20 times this bound at least), each a leaf
    // already.
    expect(await checkpointRoots()).toEqual(expect.arrayContaining(roots));
    expect((await knownLeaves()) - knownBefore).toBeLessThan(1000);
    await expectTreesVerify();
  });

  it('with --since, copies what was ingested before from the live generation and replays only the rest', async () => {
    const tenant = tenants[1]!;
    await send(tenant, 100_000, 500);
    await waitFor(
      'the first batch projected',
      async () => (await read(tenant)).ids.size === PER_TENANT + 500,
    );
    const since = new Date();
    await new Promise((r) => setTimeout(r, 1100));
    await send(tenant, 200_000, 500);
    await waitFor(
      'the second batch projected',
      async () => (await read(tenant)).ids.size === PER_TENANT + 1000,
    );

    const res = await opsCli(names, () => gw.databaseUrl())([
      'replay',
      'projection',
      '--since',
      since.toISOString(),
      '--drop-old-after',
      '5',
      '--json',
    ]);
    expect(res.code, res.err).toBe(0);
    const report = res.json<Record<string, number>>();
    expect(report).toMatchObject({ generation: 3, previous: 2 });
    // Only the records written from --since on were read again; the rest came from the live generation.
    expect(report.records_replayed).toBeGreaterThanOrEqual(500);
    expect(report.records_replayed).toBeLessThan(10_000);
    for (const t of tenants) {
      await waitFor(`${t} complete after the replay`, async () =>
        sameSet((await read(t)).ids, acked.get(t)!),
      );
    }
    // What was copied from the live generation went through the new one's views too.
    for (const t of tenants) await expectFilterIndexExact(fx.ch, t, 3);
    await expectTreesVerify();
  });
});
