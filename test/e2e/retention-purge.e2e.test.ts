import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseVerifierKey,
  trailCheck,
  type ListedCheckpoint,
  type VerifierKey,
  type WindowProof,
} from '@audit-trail/integrity-verifier';
import { sqlIdentifier, sqlValue } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { referencePython, runWith, writeReferenceModule } from '../support/python-reference.js';
import { exportDir, exporterService, LOOPBACK_TARGETS, notaryService } from '../support/stack.js';
import { mutate } from '../support/tampering.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// Ingest and projector as processes on a Postgres database of the test's own (the projector reads the horizons
// there), the gateway to read the trail, a notary to sign its checkpoints, a dispatcher to deliver the tenant's
// events to a receiver of the test's, the operator CLI in-process.
const fx = pipelineFixture('retention-purge', {}, { trees: true });
const { names } = fx;
const files = { EXPORT_DIR: exportDir(names) };
const keyDir = mkdtempSync(join(tmpdir(), 'retention-keys-'));
const pythonDir = mkdtempSync(join(tmpdir(), 'retention-reference-'));
const integrityEnv = { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: 'audit.example.test' };
const gw = gatewayFixture(names, { databaseUrl: fx.databaseUrl, env: { ...files, ...LOOPBACK_TARGETS } });
dispatcherFixture(names, gw, { WEBHOOK_REPLAY_SETTLE_MS: '0', WEBHOOK_REPLAY_RATE: '1000' });
const receiver = await webhookReceiver(() => 204);
const ops = opsCli(names, () => fx.databaseUrl, { ...files, ...integrityEnv });
const exporter = exporterService(names, fx.databaseUrl);
const notary = notaryService(names, fx.databaseUrl, {
  ...integrityEnv,
  INTEGRITY_CHECKPOINT_INTERVAL_MS: '500',
});
const CHECK_TRAIL = fileURLToPath(new URL('../support/integrity-reference/check_trail.py', import.meta.url));
let python = '';
beforeAll(async () => {
  await Promise.all([exporter.start(), notary.start()]);
  expect((await ops(['integrity', 'keys', 'create'])).code).toBe(0);
  writeReferenceModule(pythonDir);
  python = await referencePython();
});
afterAll(async () => {
  await Promise.all([exporter.stop(), notary.stop(), receiver.close()]);
  rmSync(keyDir, { recursive: true, force: true });
  rmSync(pythonDir, { recursive: true, force: true });
});

const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.now();
const MAX_DAYS = 400;
// Two hours either side of the maximum: on either side of the horizon whatever hour the purge runs in.
const OLDEST = NOW - 1000 * DAY;
const JUST_PAST = NOW - MAX_DAYS * DAY - 2 * HOUR;
const JUST_WITHIN = NOW - MAX_DAYS * DAY + 2 * HOUR;
const HOLD_WINDOW = { since: OLDEST + 10, until: OLDEST + 20 };

interface Sent {
  event: TestEvent;
  ms: number;
}

/** A tenant's history: old events (some held by user, by patient or by time), events at the edge, recent ones. */
function history(tenant: string): Sent[] {
  const at = (i: number, ms: number, fields: Partial<TestEvent> & { patient_id?: string } = {}): Sent => ({
    event: { ...makeEvent(tenant, i), timestamp: new Date(ms).toISOString(), ...fields },
    ms,
  });
  const sent: Sent[] = [];
  for (let i = 0; i < 60; i++) {
    const fields = i % 10 === 0 ? { user_id: 'u-held' } : i % 10 === 1 ? { patient_id: 'p-held' } : {};
    sent.push(at(i, OLDEST + i, fields));
  }
  for (let i = 60; i < 100; i++) sent.push(at(i, NOW - 500 * DAY + i));
  sent.push(at(100, JUST_PAST), at(101, JUST_WITHIN));
  for (let i = 102; i < 150; i++) sent.push(at(i, NOW - 10 * DAY + i));
  return sent;
}

const heldByUser = (s: Sent) => s.event.user_id === 'u-held';
const heldByPatient = (s: Sent) => (s.event as { patient_id?: string }).patient_id === 'p-held';
const heldByTime = (s: Sent) => s.ms >= HOLD_WINDOW.since && s.ms < HOLD_WINDOW.until;
const pastMax = (s: Sent) => s.ms < NOW - MAX_DAYS * DAY;

/** The tenant's events the test sent (makeEvent's resource types), not those the service wrote about it. */
async function storedIds(tenant: string, generation = 1): Promise<string[]> {
  const result = await fx.ch.query({
    query: `SELECT event_id FROM ${sqlIdentifier(projectionTables(generation).events)}
      WHERE tenant_id = ${sqlValue(tenant)} AND resource_type IN ('claim', 'upload') ORDER BY event_id`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ event_id: string }>()).map((r) => r.event_id);
}

const ids = (sent: Sent[]) => sent.map((s) => s.event.event_id).sort();

async function send(tenant: string, sent: Sent[]) {
  const res = await ingest(
    fx.ingest.url,
    names.ingestToken,
    sent.map((s) => s.event),
  );
  expect(res.status).toBe(202);
}

/** Every page of a paged answer of the API, following `next_cursor`. */
async function pages<T extends { page: { next_cursor: string | null } }>(path: string, key: string) {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await gw.get(cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path, key);
    expect(res.status, res.text).toBe(200);
    all.push(JSON.parse(res.text) as T);
    cursor = all.at(-1)!.page.next_cursor;
  } while (cursor);
  return all;
}

/**
 * An auditor's offline check of the window's export with the API's answers (docs/integrity.md "Offline
 * verification"), by the package's trail check and by docs/integrity.md's Python reference; once a checkpoint
 * covers every leaf of the window.
 */
async function offlineCheck(key: string, window: { since: string; until: string }) {
  return waitFor('a checkpoint of every leaf of the window', async () => {
    const proofs = await pages<WindowProof & { page: { next_cursor: string | null } }>(
      `/audit/integrity/proofs/window?since=${window.since}&until=${window.until}`,
      key,
    );
    if (proofs.at(-1)!.later.length > 0) return undefined;
    const checkpoints = (
      await pages<{ checkpoints: ListedCheckpoint[]; page: { next_cursor: string | null } }>(
        '/audit/integrity/checkpoints',
        key,
      )
    ).flatMap((p) => p.checkpoints);
    const keys = (
      JSON.parse((await gw.get('/audit/integrity/keys', key)).text) as { keys: { verifier_key: string }[] }
    ).keys.map((k) => k.verifier_key);
    const exported = await gw.send('POST', '/audit/export', key, window);
    expect(exported.status, exported.text).toBe(200);
    const body = JSON.parse(exported.text) as { events: unknown[]; truncated: boolean };
    const check = trailCheck({
      keys: keys.map((k) => parseVerifierKey(k)!) as VerifierKey[],
      checkpoints,
      proofs,
      complete: true,
    });
    body.events.forEach((row, i) => check.row(row, i + 1));
    const given = { keys, checkpoints, proofs, rows: body.events, complete: true, truncated: body.truncated };
    return {
      ours: check.finish(body.truncated),
      python: JSON.parse(await runWith(python, [CHECK_TRAIL, pythonDir], JSON.stringify(given))) as unknown[],
    };
  });
}

/** The command run with --json, expected to succeed: its output parsed. */
async function ok<T = Record<string, unknown>>(...argv: string[]) {
  const res = await ops([...argv, '--json']);
  expect(res.code, res.err).toBe(0);
  return res.json<T>();
}

describe('retention purge', () => {
  it('removes exactly the events past the maximum that no hold covers, and nothing brings them back', async () => {
    const tenant = `${names.tenant}-a`;
    const other = `${names.tenant}-b`;
    const sent = history(tenant);
    const control = history(other);
    // A SIEM receives the tenant's events; what a purge removed is delivered no more than stored.
    const began = new Date(Date.now() - 1000).toISOString();
    const hooks = await gw.mint(tenant, 'audit:read,webhooks:write');
    const created = await gw.send('POST', '/audit/webhooks', hooks, {
      url: receiver.url('/siem'),
      event_filter: [],
    });
    expect(created.status, created.text).toBe(201);
    const endpoint = (JSON.parse(created.text) as { endpoint: { id: string } }).endpoint.id;
    const deliveries = (id: string) => receiver.at('/siem').filter((r) => r.id === id).length;
    await send(tenant, sent);
    await send(other, control);
    await waitFor('every event stored', async () => {
      const [a, b] = await Promise.all([storedIds(tenant), storedIds(other)]);
      return a.length === sent.length && b.length === control.length;
    });

    // Nothing to purge under the default policy (no maximum), and options are checked first.
    expect(await ok('retention', 'purge', '--tenant', tenant)).toMatchObject({
      purged_before: null,
      purged: 0,
    });
    for (const argv of [
      ['retention', 'purge'],
      ['retention', 'purge', '--tenant', tenant, '--since', 'x'],
    ]) {
      expect((await ops(argv)).code).toBe(2);
    }

    await ok('retention', 'set', '--tenant', tenant, '--min-days', '30', '--max-days', String(MAX_DAYS));
    const userHold = await ok<{ hold: { hold_id: string } }>(
      'holds',
      'create',
      '--tenant',
      tenant,
      '--reason',
      'matter 1',
      '--user-id',
      'u-held',
    );
    await ok('holds', 'create', '--tenant', tenant, '--reason', 'matter 2', '--patient-id', 'p-held');
    await ok(
      'holds',
      'create',
      '--tenant',
      tenant,
      '--reason',
      'matter 3',
      '--since',
      new Date(HOLD_WINDOW.since).toISOString(),
      '--until',
      new Date(HOLD_WINDOW.until).toISOString(),
    );
    // Two export files: one of a window before the horizon, one of a window after it.
    const exportKey = await gw.mint(tenant, 'audit:export');
    const exportJob = async (since: number, until: number) => {
      const res = await gw.send('POST', '/audit/exports', exportKey, {
        since: new Date(since).toISOString(),
        until: new Date(until).toISOString(),
        format: 'ndjson',
      });
      expect(res.status, res.text).toBe(202);
      const { id } = JSON.parse(res.text) as { id: string };
      await waitFor(`export ${id} succeeded`, async () => (await jobStatus(id)) === 'succeeded');
      return id;
    };
    const jobStatus = async (id: string) =>
      (JSON.parse((await gw.get(`/audit/exports/${id}`, exportKey)).text) as { status: string }).status;
    const fileOf = (id: string) => readdirSync(files.EXPORT_DIR).find((f) => f.startsWith(id));
    // A window is at most 366 days.
    const [old, recent] = [
      await exportJob(OLDEST - 1, OLDEST + 300 * DAY),
      await exportJob(NOW - 300 * DAY, NOW),
    ];
    expect([fileOf(old), fileOf(recent)]).toEqual([expect.any(String), expect.any(String)]);

    const held = (s: Sent) => heldByUser(s) || heldByPatient(s) || heldByTime(s);
    const purged = sent.filter((s) => pastMax(s) && !held(s));
    const keptByHolds = sent.filter((s) => pastMax(s) && held(s));

    // A dry run counts and changes nothing.
    expect(await ok('retention', 'purge', '--tenant', tenant, '--dry-run')).toMatchObject({
      dry_run: true,
      holds: 3,
      purged: purged.length,
      kept: keptByHolds.length,
    });
    expect(await storedIds(tenant)).toEqual(ids(sent));

    const report = await ok<{ purge_id: string; purged_before: string; purged: number; kept: number }>(
      'retention',
      'purge',
      '--tenant',
      tenant,
    );
    expect(report).toMatchObject({
      dry_run: false,
      purged: purged.length,
      kept: keptByHolds.length,
      export_files: 1,
    });
    // The file that held purged events is gone and its job expired; the other is as it was.
    expect([await jobStatus(old), await jobStatus(recent)]).toEqual(['expired', 'succeeded']);
    expect(fileOf(old)).toBeUndefined();
    expect(existsSync(`${files.EXPORT_DIR}/${fileOf(recent)}`)).toBe(true);
    const horizon = Date.parse(report.purged_before);
    expect(horizon % HOUR).toBe(0);
    expect(horizon).toBeGreaterThan(JUST_PAST);
    expect(horizon).toBeLessThanOrEqual(JUST_WITHIN);

    const remaining = sent.filter((s) => !purged.includes(s));
    expect(await storedIds(tenant)).toEqual(ids(remaining));
    expect(await storedIds(other)).toEqual(ids(control));
    await expectFilterIndexExact(fx.ch, tenant);
    await expectFilterIndexExact(fx.ch, other);

    const status = await ok<{ purged_before: string; runs: Record<string, unknown>[] }>(
      'retention',
      'status',
      '--tenant',
      tenant,
    );
    expect(status.purged_before).toBe(report.purged_before);
    expect(status.runs[0]).toMatchObject({
      purge_id: report.purge_id,
      status: 'succeeded',
      progress: null,
      purged: purged.length,
    });

    // The API says how far purges reached.
    const key = await gw.mint(tenant, 'audit:read');
    const policy = await gw.get('/audit/retention', key);
    expect(JSON.parse(policy.text)).toMatchObject({
      max_days: MAX_DAYS,
      purged_before: report.purged_before,
      last_purge: {
        purge_id: report.purge_id,
        status: 'succeeded',
        purged: purged.length,
        kept: report.kept,
      },
    });

    // A purged event's lookup says so; an id never stored is still the 404 of any unknown id.
    const gone = await gw.get(`/audit/events/${purged[0]!.event.event_id}`, key);
    expect([gone.status, JSON.parse(gone.text).error]).toEqual([410, 'purged']);
    expect((await gw.get(`/audit/events/${randomUUID()}`, key)).status).toBe(404);
    const otherKey = await gw.mint(other, 'audit:read');
    expect((await gw.get(`/audit/events/${purged[0]!.event.event_id}`, otherKey)).status).toBe(404);

    // The purge is in the tenant's trail, written before it removed anything.
    const audited = await waitFor('the purge in the trail', async () => {
      const res = await gw.get('/audit/events?action=admin.retention.purge', key);
      const events = (JSON.parse(res.text) as { events: Record<string, unknown>[] }).events;
      return events.length === 1 && events[0]!;
    });
    expect(audited).toMatchObject({ resource_type: 'retention_purge', resource_id: report.purge_id });
    expect(JSON.parse(String(audited.details))).toEqual({
      purged_before: report.purged_before,
      holds: 3,
      events: purged.length,
    });

    // Sent late with old times: one no hold covers is not stored, one a hold covers is; a second run finds
    // nothing more to remove.
    const late = [
      {
        event: { ...makeEvent(tenant, 200), timestamp: new Date(OLDEST + 500).toISOString() },
        ms: OLDEST + 500,
      },
      {
        event: {
          ...makeEvent(tenant, 201),
          user_id: 'u-held',
          timestamp: new Date(OLDEST + 501).toISOString(),
        },
        ms: OLDEST + 501,
      },
      { event: makeEvent(tenant, 202), ms: NOW },
    ];
    await send(tenant, late);
    await waitFor(
      'the late events stored',
      async () => (await storedIds(tenant)).length === remaining.length + 2,
    );
    // Delivered in their order to the endpoint: the one the purge left out, before them, was not.
    await waitFor('the late events delivered', async () => deliveries(late[1]!.event.event_id) === 1);
    await waitFor('the late events delivered', async () => deliveries(late[2]!.event.event_id) === 1);
    expect(deliveries(late[0]!.event.event_id)).toBe(0);
    expect(await storedIds(tenant)).toEqual(ids([...remaining, late[1]!, late[2]!]));
    expect(await ok('retention', 'purge', '--tenant', tenant)).toMatchObject({
      purged: 0,
      kept: keptByHolds.length + 1,
    });

    // Released, a hold keeps nothing from the next run.
    await ok(
      'holds',
      'release',
      '--tenant',
      tenant,
      '--id',
      userHold.hold.hold_id,
      '--reason',
      'matter closed',
    );
    const released = await ok<{ purged: number }>('retention', 'purge', '--tenant', tenant);
    const nowHeld = (s: Sent) => heldByPatient(s) || heldByTime(s);
    const left = [...remaining, late[1]!, late[2]!].filter((s) => !pastMax(s) || nowHeld(s));
    expect(released.purged).toBe(remaining.length + 2 - left.length);
    expect(await storedIds(tenant)).toEqual(ids(left));
    await expectFilterIndexExact(fx.ch, tenant);

    // The matter reopens: a hold like the released one keeps what arrives from now on, and nothing a run removed.
    await ok('holds', 'create', '--tenant', tenant, '--reason', 'matter 1 again', '--user-id', 'u-held');
    const reopened = {
      event: {
        ...makeEvent(tenant, 203),
        user_id: 'u-held',
        timestamp: new Date(OLDEST + 502).toISOString(),
      },
      ms: OLDEST + 502,
    };
    await waitFor('the projector seeing the new hold', async () => {
      await send(tenant, [reopened]);
      return (await storedIds(tenant)).includes(reopened.event.event_id);
    });
    const kept = [...left, reopened];
    expect(await storedIds(tenant)).toEqual(ids(kept));

    // A replay of the whole topic into a new generation brings back none of what was purged, though the new hold
    // covers some of it.
    const replay = await ops(['replay', 'projection', '--drop-old-after', '5', '--json']);
    expect(replay.code, replay.err).toBe(0);
    expect(replay.json()).toMatchObject({ generation: 2 });
    expect(await storedIds(tenant, 2)).toEqual(ids(kept));
    expect(await storedIds(other, 2)).toEqual(ids(control));
    await expectFilterIndexExact(fx.ch, tenant, 2);

    // The tree kept every leaf: the verifier counts those the policy accounts for as purged, not missing (the
    // late event no hold covered was never stored, and counts alike). A row a hold over its whole time kept,
    // deleted behind the policy's back, is still missing.
    const verify = () => ops(['integrity', 'verify', '--tenant', tenant, '--json']);
    const everyLeaf = sent.length + late.length + 1;
    const verified = await waitFor('the trees verified', async () => {
      const res = await verify();
      return res.code === 0 && res.json<{ ok: boolean; purged: number; purged_before: string }>();
    });
    expect(verified).toMatchObject({ purged: everyLeaf - kept.length, purged_before: expect.any(String) });
    // So does the offline check of the old window's export, told by the window proof which leaves were purged.
    const auditor = await gw.mint(tenant, 'audit:read,audit:export');
    const oldWindow = {
      since: new Date(OLDEST).toISOString(),
      until: new Date(JUST_WITHIN + 1).toISOString(),
    };
    const oldLeaves = everyLeaf - sent.filter((s) => s.ms > JUST_WITHIN).length - 1;
    const oldKept = kept.filter((s) => s.ms <= JUST_WITHIN);
    const offline = await offlineCheck(auditor, oldWindow);
    expect(offline.ours).toMatchObject({
      ok: true,
      leaves: oldLeaves,
      rows: oldKept.length,
      purged: oldLeaves - oldKept.length,
    });
    expect(offline.python).toEqual([]);
    // A replay of the endpoint's window sends again what the trail keeps, none of what the purges removed.
    const until = new Date(Date.now() + 500).toISOString();
    await waitFor('until to pass', async () => Date.now() > Date.parse(until));
    const asked = await gw.send('POST', `/audit/webhooks/${endpoint}/replay`, hooks, { since: began, until });
    expect(asked.status, asked.text).toBe(202);
    await waitFor('the webhook replay to succeed', async () => {
      const res = await gw.send('GET', `/audit/webhooks/${endpoint}/replay`, hooks);
      return (JSON.parse(res.text) as { status: string }).status === 'succeeded';
    });
    // (The reopened event was sent until stored, so more than once: each record of it is delivered.)
    const ours = [...sent, ...late, reopened].map((e) => e.event.event_id);
    await waitFor('every kept event sent again', async () =>
      kept.every((e) => deliveries(e.event.event_id) >= 2),
    );
    expect(ours.filter((id) => deliveries(id) >= 2).sort()).toEqual(ids(kept));

    const keptByTime = kept.find(heldByTime)!;
    await mutate(
      fx.ch,
      `ALTER TABLE ${sqlIdentifier(projectionTables(2).events)} DELETE
        WHERE tenant_id = ${sqlValue(tenant)} AND event_id = ${sqlValue(keptByTime.event.event_id)}`,
    );
    const tampered = await verify();
    expect(tampered.code).toBe(1);
    expect(tampered.json<{ purged: number; findings: unknown[] }>()).toMatchObject({
      purged: everyLeaf - kept.length,
      findings: [{ kind: 'missing', event_id: keptByTime.event.event_id }],
    });
    const missing = await offlineCheck(auditor, oldWindow);
    expect(missing.ours).toMatchObject({
      purged: oldLeaves - oldKept.length,
      findings: [{ kind: 'missing', event_id: keptByTime.event.event_id, leaf_index: expect.any(Number) }],
    });
    expect(missing.python).toEqual(missing.ours.findings);
  });
});
