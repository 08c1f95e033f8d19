import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlValue } from '@audit/shared/platform';
import { ingest, makeEvent } from '../support/events.js';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { custodianService } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

// Ingest and projector as processes on a Postgres database of the test's own (the projector reads the purges
// there), the operator CLI in-process to set policies and holds, and two custodians, as a deployment runs them,
// looking for due purges twice a second.
const fx = pipelineFixture('retention-schedule', {}, { trees: true });
const { names } = fx;
const ops = opsCli(names, () => fx.databaseUrl);
const custodians = [0, 1].map(() =>
  custodianService(names, fx.databaseUrl, { RETENTION_PURGE_CHECK_MS: '500' }),
);
let db: pg.Pool;
beforeAll(() => {
  db = new pg.Pool({ connectionString: fx.databaseUrl, max: 2 });
});
afterAll(async () => {
  await Promise.all(custodians.map((c) => c.stop()));
  await db?.end();
});

const DAY = 86_400_000;
const NOW = Date.now();
const MAX_DAYS = 400;

/** Old events (some by a held user) and recent ones of the tenant. */
function history(tenant: string, old: number, recent: number) {
  const at = (i: number, ms: number, user?: string) => ({
    ...makeEvent(tenant, i),
    timestamp: new Date(ms).toISOString(),
    ...(user && { user_id: user }),
  });
  return [
    ...Array.from({ length: old }, (_, i) => at(i, NOW - 1000 * DAY + i, i % 4 === 0 ? 'u-held' : undefined)),
    ...Array.from({ length: recent }, (_, i) => at(old + i, NOW - 10 * DAY + i)),
  ];
}

/** The tenant's events the test sent (makeEvent's resource types), not those the service wrote about it. */
async function storedIds(tenant: string): Promise<string[]> {
  const result = await fx.ch.query({
    query: `SELECT event_id FROM audit_events
      WHERE tenant_id = ${sqlValue(tenant)} AND resource_type IN ('claim', 'upload') ORDER BY event_id`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ event_id: string }>()).map((r) => r.event_id);
}

async function purgeEvents(tenant: string) {
  const result = await fx.ch.query({
    query: `SELECT user_id, user_role, resource_id FROM audit_events
      WHERE tenant_id = ${sqlValue(tenant)} AND action = 'admin.retention.purge'`,
    format: 'JSONEachRow',
  });
  return result.json<{ user_id: string; user_role: string; resource_id: string }>();
}

const runs = async (tenant: string) =>
  (
    await db.query<{ purge_id: string; status: string; started_by: string; purged: string | null }>(
      'SELECT purge_id, status, started_by, purged FROM retention_purges WHERE tenant_id = $1',
      [tenant],
    )
  ).rows;

const metrics = async (custodian: (typeof custodians)[number]) => (await fetch(custodian.metricsUrl)).text();

/** The samples of the metric `name`, each with its labels (every service's carry `service` too). */
async function samples(custodian: (typeof custodians)[number], name: string) {
  return [...(await metrics(custodian)).matchAll(/^(\w+)\{([^}]*)\} (\S+)$/gm)]
    .filter((m) => m[1] === name)
    .map((m) => ({ labels: m[2]!, value: Number(m[3]) }));
}

/** A custodian's counter of checks by outcome. */
async function checks(custodian: (typeof custodians)[number]): Promise<Record<string, number>> {
  return Object.fromEntries(
    (await samples(custodian, 'custodian_purge_checks_total')).map((s) => [
      /outcome="(\w+)"/.exec(s.labels)![1]!,
      s.value,
    ]),
  );
}

/** When a custodian's last pass over the tenants ended (epoch ms). */
async function passEnded(custodian: (typeof custodians)[number]): Promise<number> {
  const [pass] = await samples(custodian, 'custodian_purge_pass_timestamp_seconds');
  return (pass?.value ?? 0) * 1000;
}

const ok = async (...argv: string[]) => {
  const res = await ops(argv);
  expect(res.code, res.err).toBe(0);
};

describe('the retention schedule', () => {
  it('purges each due tenant once, by the custodian, and leaves alone those with nothing to purge', async () => {
    const [due, empty, unlimited] = ['due', 'empty', 'unlimited'].map((t) => `${names.tenant}-${t}`) as [
      string,
      string,
      string,
    ];
    const sent = {
      due: history(due, 40, 10),
      empty: history(empty, 0, 10),
      unlimited: history(unlimited, 20, 5),
    };
    const res = await ingest(fx.ingest.url, names.ingestToken, [
      ...sent.due,
      ...sent.empty,
      ...sent.unlimited,
    ]);
    expect(res.status).toBe(202);
    await waitFor('every event stored', async () => {
      const stored = await Promise.all([storedIds(due), storedIds(empty), storedIds(unlimited)]);
      return stored.map((s) => s.length).join() === '50,10,25';
    });
    await ok('retention', 'set', '--tenant', due, '--min-days', '30', '--max-days', String(MAX_DAYS));
    await ok('retention', 'set', '--tenant', empty, '--min-days', '30', '--max-days', String(MAX_DAYS));
    await ok('holds', 'create', '--tenant', due, '--reason', 'matter 7', '--user-id', 'u-held');

    await Promise.all(custodians.map((c) => c.start()));
    const [run] = await waitFor('the due tenant purged', async () => {
      const r = await runs(due);
      return r.some((x) => x.status === 'succeeded') ? r : undefined;
    });
    // Both custodians passed over every tenant since: neither purged the tenant a second time.
    const purgedAt = Date.now();
    await waitFor('a pass of each custodian after the purge', async () => {
      const ended = await Promise.all(custodians.map(passEnded));
      return ended.every((at) => at > purgedAt) || undefined;
    });
    expect(await runs(due)).toEqual([
      { purge_id: run!.purge_id, status: 'succeeded', started_by: 'custodian', purged: '30' },
    ]);
    const held = sent.due.filter(
      (e) => e.user_id === 'u-held' || Date.parse(e.timestamp) > NOW - MAX_DAYS * DAY,
    );
    expect(await storedIds(due)).toEqual(held.map((e) => e.event_id).sort());
    await expectFilterIndexExact(fx.ch, due);
    // The run is in the tenant's trail, by the custodian.
    await waitFor('the purge event stored', async () => (await purgeEvents(due)).length === 1 || undefined);
    expect(await purgeEvents(due)).toEqual([
      { user_id: 'custodian', user_role: 'service', resource_id: run!.purge_id },
    ]);

    // Nothing to remove: no run, no event. No maximum: not even looked at.
    expect(await runs(empty)).toEqual([]);
    expect(await purgeEvents(empty)).toEqual([]);
    expect(await storedIds(empty)).toHaveLength(10);
    expect(await storedIds(unlimited)).toHaveLength(25);
    const counted = await Promise.all(custodians.map(checks));
    expect(counted.reduce((n, c) => n + c.purged!, 0)).toBe(1);
    expect(counted.reduce((n, c) => n + c.failed!, 0)).toBe(0);

    // A shutdown ends each custodian cleanly between two checks.
    expect(await Promise.all(custodians.map((c) => c.stop()))).toEqual([0, 0]);
  });
});
