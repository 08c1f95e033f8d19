import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueNames } from '../../../../test/support/names.js';
import { ensureServiceLogins, migratedPostgres, serviceLoginUrl } from '../../../../test/support/postgres.js';
import { purgeRepository } from './purge.repository.js';
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
    expect(first).toEqual({ policy: expect.objectContaining({ version: 0 }), holds: [], purgedBefore: null });
    const { runs } = await purges.status(tenant, 10);
    expect(runs).toEqual([
      expect.objectContaining({ purge_id: lost, status: 'failed', error: expect.stringMatching(/stopped/) }),
    ]);
  });
});
