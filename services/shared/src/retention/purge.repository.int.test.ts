import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueNames } from '../../../../test/support/names.js';
import { ensureServiceLogins, migratedPostgres, serviceLoginUrl } from '../../../../test/support/postgres.js';
import { PurgeBusyError, purgeRepository } from './purge.repository.js';
import { retentionRepository } from './retention.repository.js';

const names = uniqueNames('purges');
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
let pool: pg.Pool;
let purges: ReturnType<typeof purgeRepository>;
const nothing = async () => undefined;

beforeAll(async () => {
  postgres = await migratedPostgres(names);
  // As `ops` opens it: a transaction holding the tenant's lock, and one connection besides.
  pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  purges = purgeRepository(pool);
});
afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

describe('purge horizons and runs', () => {
  it("moves a horizon only forward, and gives the projector each tenant's deleting runs and all its holds", async () => {
    const [a, b] = [`${names.tenant}-a`, `${names.tenant}-b`];
    const retention = retentionRepository(pool);
    const kept = await retention.createHold(a, { reason: 'r', scope: { user_id: 'u' } }, 'ops', 100, nothing);
    const released = await retention.createHold(a, { reason: 'r', scope: {} }, 'ops', 100, nothing);
    const gone = await retention.releaseHold(a, released!.hold_id, { reason: 'done', by: 'ops' }, nothing);
    await retention.createHold(b, { reason: 'r', scope: {} }, 'ops', 100, nothing);
    const [deleting, failed] = [randomUUID(), randomUUID()];
    for (const id of [deleting, failed]) {
      await purges.started(a, { purge_id: id, purged_before: 2000, holds: 1, started_by: 'ops' });
    }
    await purges.deleting(deleting);
    await purges.advance(a, 2000);
    await purges.advance(a, 1000);
    // As the projector reads them, with its role's columns only.
    await ensureServiceLogins();
    const projector = new pg.Pool({ connectionString: serviceLoginUrl(postgres.url, 'projector'), max: 1 });
    const histories = await purgeRepository(projector)
      .histories()
      .finally(() => projector.end());
    const ms = (d: Date | null | undefined) => (d ? d.getTime() : null);
    expect(histories.get(a)).toEqual({
      purgedBefore: 2000,
      // The run that failed before it began deleting removed nothing, and decides nothing.
      runs: [{ deletingSince: expect.any(Number), purgedBefore: 2000 }],
      holds: expect.arrayContaining([
        { scope: { user_id: 'u' }, createdAt: ms(kept!.created_at), releasedAt: null },
        { scope: {}, createdAt: ms(gone!.hold.created_at), releasedAt: ms(gone!.hold.released_at) },
      ]),
    });
    // A tenant without a horizon is left out, whatever its holds.
    expect(histories.has(b)).toBe(false);
    expect(await purges.history(b)).toEqual({ purgedBefore: null, runs: [], holds: [] });
    expect((await purges.status(a, 10)).purgedBefore).toBe(2000);
  });

  it('runs purges of one tenant one at a time, and says a run whose process stopped has failed', async () => {
    const tenant = `${names.tenant}-runs`;
    const lost = randomUUID();
    await purges.started(tenant, { purge_id: lost, purged_before: 1, holds: 0, started_by: 'ops' });
    const order: string[] = [];
    // Two `ops` processes, each with its pool of two.
    const second = new pg.Pool({ connectionString: postgres.url, max: 2 });
    const run = (name: string) =>
      purgeRepository(name === 'first' ? pool : second).exclusive(tenant, async (start) => {
        order.push(`${name} begins`);
        await new Promise((r) => setTimeout(r, 200));
        order.push(`${name} ends`);
        return start;
      });
    const [first] = await Promise.all([run('first'), run('second')]).finally(() => second.end());
    expect(order).toEqual(['first begins', 'first ends', 'second begins', 'second ends']);
    // The lost run is the last one, said to have failed before the purge began.
    expect(first).toEqual({
      policy: expect.objectContaining({ version: 0 }),
      holds: [],
      purgedBefore: null,
      last: { status: 'failed', started_at: expect.any(Date), finished_at: expect.any(Date) },
    });
    const { runs } = await purges.status(tenant, 10);
    expect(runs).toEqual([
      expect.objectContaining({ purge_id: lost, status: 'failed', error: expect.stringMatching(/stopped/) }),
    ]);
  });

  it('gives the custodian the tenants with a maximum and their last runs, and a purge that does not wait', async () => {
    const retention = retentionRepository(pool);
    const [withMax, never, noMax] = [
      `${names.tenant}-sched-a`,
      `${names.tenant}-sched-b`,
      `${names.tenant}-sched-c`,
    ];
    await retention.setPolicy(withMax, { min_days: 30, max_days: 400 }, 'ops', nothing);
    await retention.setPolicy(never, { min_days: 30, max_days: 500 }, 'ops', nothing);
    await retention.setPolicy(noMax, { min_days: 30, max_days: null }, 'ops', nothing);
    const [older, newer] = [randomUUID(), randomUUID()];
    for (const id of [older, newer]) {
      await purges.started(withMax, { purge_id: id, purged_before: 1, holds: 0, started_by: 'custodian' });
    }
    await purges.finished(newer, { error: 'ClickHouse error 341' });
    // As the custodian reads them, with its role's grants only.
    await ensureServiceLogins();
    const custodian = new pg.Pool({ connectionString: serviceLoginUrl(postgres.url, 'custodian'), max: 2 });
    try {
      const candidates = (await purgeRepository(custodian).candidates()).filter((c) =>
        c.tenant_id.startsWith(`${names.tenant}-sched-`),
      );
      const newest = (await purges.status(withMax, 1)).runs[0]!;
      expect(newest.purge_id).toBe(newer);
      expect(candidates).toEqual([
        {
          tenant_id: withMax,
          last: { status: 'failed', started_at: newest.started_at, finished_at: newest.finished_at },
        },
        { tenant_id: never, last: null },
      ]);
      // While another holds the tenant's lock, a purge that does not wait is told so at once, and runs nothing.
      let ran = false;
      let release = () => {};
      let held = () => {};
      const locked = new Promise<void>((r) => (held = r));
      const holding = purges.exclusive(withMax, () => {
        held();
        return new Promise<void>((r) => (release = r));
      });
      await locked;
      await expect(
        purgeRepository(custodian).exclusive(
          withMax,
          async () => {
            ran = true;
          },
          false,
        ),
      ).rejects.toBeInstanceOf(PurgeBusyError);
      release();
      await holding;
      expect(ran).toBe(false);
      await purgeRepository(custodian).exclusive(
        withMax,
        async () => {
          ran = true;
        },
        false,
      );
      expect(ran).toBe(true);
    } finally {
      await custodian.end();
    }
  });

  it('records where a run has got, keeps where a failed one stopped, and totals every run over all tenants', async () => {
    const tenant = `${names.tenant}-c`;
    const before = await purges.totals();
    const [failed, succeeded, running] = [randomUUID(), randomUUID(), randomUUID()];
    const last = async () => (await purges.status(tenant, 1)).runs[0]!;
    await purges.started(tenant, { purge_id: failed, purged_before: 10, holds: 0, started_by: 'ops' });
    expect((await last()).progress).toBeNull();
    await purges.deleting(failed);
    expect((await last()).progress).toEqual({
      phase: 'waiting',
      round: null,
      tables_done: null,
      tables: null,
    });
    const deleting = { phase: 'deleting' as const, round: 2, tables_done: 1, tables: 4 };
    await purges.progressed(failed, deleting);
    expect((await last()).progress).toEqual(deleting);
    await purges.finished(failed, { error: 'ClickHouse error 341' });
    expect(await last()).toMatchObject({ status: 'failed', progress: deleting });

    await purges.started(tenant, { purge_id: succeeded, purged_before: 20, holds: 0, started_by: 'ops' });
    await purges.deleting(succeeded);
    await purges.progressed(succeeded, { phase: 'expiring', round: null, tables_done: null, tables: 4 });
    await purges.finished(succeeded, { purged: 5, kept: 1 });
    expect(await last()).toMatchObject({ status: 'succeeded', purged: 5, progress: null });

    await purges.started(tenant, { purge_id: running, purged_before: 30, holds: 0, started_by: 'ops' });
    const after = await purges.totals();
    expect(after.runs.failed - before.runs.failed).toBe(1);
    expect(after.runs.succeeded - before.runs.succeeded).toBe(1);
    expect(after.runs.running - before.runs.running).toBe(1);
    expect(after.purged - before.purged).toBe(5);
    expect(after.oldestRunning).toBeInstanceOf(Date);
  });
});
