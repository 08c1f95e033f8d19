import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueNames } from '../../../../test/support/names.js';
import { migratedPostgres } from '../../../../test/support/postgres.js';
import type { LegalHold } from './legal-hold.js';
import { DEFAULT_POLICY } from './retention-policy.js';
import { retentionRepository } from './retention.repository.js';

const names = uniqueNames('retention');
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
let pool: pg.Pool;
let repo: ReturnType<typeof retentionRepository>;
const nothing = async () => undefined;
const refused = async () => {
  throw new Error('the audit topic refused');
};

beforeAll(async () => {
  postgres = await migratedPostgres(names);
  pool = new pg.Pool({ connectionString: postgres.url, max: 8 });
  repo = retentionRepository(pool);
});
afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

describe('the retention policy', () => {
  it('is the default until set, then a new version each time, announced with the one it replaced', async () => {
    const tenant = `${names.tenant}-policy`;
    expect(await repo.policy(tenant)).toEqual(DEFAULT_POLICY);
    const announced: unknown[] = [];
    const announce = async (c: unknown) => void announced.push(c);
    await repo.setPolicy(tenant, { min_days: 365, max_days: 730 }, 'ops-1', announce);
    const second = await repo.setPolicy(tenant, { min_days: 365, max_days: null }, 'ops-2', announce);
    expect(second.policy).toMatchObject({ min_days: 365, max_days: null, version: 2, changed_by: 'ops-2' });
    expect(second.previous).toMatchObject({ min_days: 365, max_days: 730, version: 1 });
    expect(announced).toEqual([
      expect.objectContaining({ previous: DEFAULT_POLICY }),
      expect.objectContaining({ policy: second.policy }),
    ]);
    expect(await repo.policy(`${names.tenant}-other`)).toEqual(DEFAULT_POLICY);
  });

  it('changes nothing when its announcement fails', async () => {
    const tenant = `${names.tenant}-refused`;
    await expect(repo.setPolicy(tenant, { min_days: 30, max_days: 60 }, 'ops', refused)).rejects.toThrow(
      /refused/,
    );
    expect(await repo.policy(tenant)).toEqual(DEFAULT_POLICY);
  });

  it('counts versions exactly under concurrent changes', async () => {
    const tenant = `${names.tenant}-race`;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        repo.setPolicy(tenant, { min_days: 100 + i, max_days: null }, 'ops', nothing),
      ),
    );
    expect((await repo.policy(tenant)).version).toBe(12);
  });
});

describe('legal holds', () => {
  it('are made up to the limit under concurrent requests, and no further', async () => {
    const tenant = `${names.tenant}-limit`;
    const made = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        repo.createHold(tenant, { reason: `r${i}`, scope: {} }, 'ops', 6, nothing),
      ),
    );
    expect(made.filter((h) => h !== null)).toHaveLength(6);
    expect(await repo.holds(tenant, 'active', 100, null)).toHaveLength(6);
  });

  it('keep their scope, page newest first, and are released once', async () => {
    const tenant = `${names.tenant}-holds`;
    const scope = {
      user_id: 'u-1',
      patient_id: 'p-1',
      since: Date.UTC(2024, 0, 1),
      until: Date.UTC(2025, 0, 1),
    };
    const made: LegalHold[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        (await repo.createHold(
          tenant,
          { reason: `case ${i}`, scope: i === 0 ? scope : {} },
          'ops',
          100,
          nothing,
        ))!,
      );
    }
    expect(made[0]!.scope).toEqual(scope);
    expect(await repo.hold(tenant, made[0]!.hold_id)).toEqual(made[0]);
    expect(await repo.hold(`${names.tenant}-other`, made[0]!.hold_id)).toBeNull();

    const announced: LegalHold[] = [];
    const first = await repo.releaseHold(
      tenant,
      made[1]!.hold_id,
      { reason: 'settled', by: 'ops-2' },
      async (h) => {
        announced.push(h);
      },
    );
    expect(first).toMatchObject({
      released: true,
      hold: { release_reason: 'settled', released_by: 'ops-2' },
    });
    const again = await repo.releaseHold(tenant, made[1]!.hold_id, { reason: 'again', by: 'ops-3' }, refused);
    expect(again).toEqual({ released: false, hold: first!.hold });
    expect(announced).toEqual([first!.hold]);
    expect(
      await repo.releaseHold(`${names.tenant}-other`, made[2]!.hold_id, { reason: 'x', by: 'o' }, nothing),
    ).toBeNull();
    await expect(
      repo.releaseHold(tenant, made[2]!.hold_id, { reason: 'x', by: 'o' }, refused),
    ).rejects.toThrow(/refused/);
    expect((await repo.hold(tenant, made[2]!.hold_id))!.released_at).toBeNull();

    const pages: string[][] = [];
    let after = null;
    for (;;) {
      const page: LegalHold[] = await repo.holds(tenant, 'all', 2, after);
      if (page.length === 0) break;
      pages.push(page.map((h) => h.hold_id));
      after = page.at(-1)!;
    }
    expect(pages.flat()).toEqual(
      [...made]
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (b.hold_id > a.hold_id ? 1 : -1))
        .map((h) => h.hold_id),
    );
    expect((await repo.holds(tenant, 'released', 100, null)).map((h) => h.hold_id)).toEqual([
      made[1]!.hold_id,
    ]);
    expect(await repo.holds(tenant, 'active', 100, null)).toHaveLength(4);
  });
});
