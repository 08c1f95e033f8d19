import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '@audit/shared/migrations';
import { type DeliveryAttempt } from '@audit/shared/webhooks';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { deliveryState } from './delivery-state.js';

const names = uniqueNames('dstate');
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;
let state: ReturnType<typeof deliveryState>;

beforeAll(async () => {
  postgres = await freshPostgres(names);
  await migratePostgres(postgres.url);
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  state = deliveryState({
    pool,
    auditLog: { publish: async () => [] },
    auditTimeoutMs: 1000,
    autoDisableAfter: 10,
  });
});
afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

async function endpoint(id: string, failures = 0) {
  await pool.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, event_filter, description, secret_sealed, consecutive_failures)
     VALUES ($1, 'tenant-a', 'https://example.com/hook', '{}', '', '\\x00', $2)`,
    [id, failures],
  );
}

const attempt = (endpointId: string, at: number, succeeded: boolean, n = 1): DeliveryAttempt => ({
  endpoint_id: endpointId,
  event_id: `00000000-0000-4000-8000-${String(at % 1e12).padStart(12, '0')}`,
  attempt: n,
  attempted_at: new Date(at),
  succeeded,
  terminal: false,
  status_code: succeeded ? 204 : null,
  error: succeeded ? null : 'connection refused',
  latency_ms: 3,
  replay: false,
  next_attempt_at: null,
});

const row = async (id: string) =>
  (
    await pool.query<{ consecutive_failures: number; last_delivery_at: Date | null }>(
      'SELECT consecutive_failures, last_delivery_at FROM webhook_endpoints WHERE id = $1',
      [id],
    )
  ).rows[0];

describe('deliveryState.recordAttempt (attempts written together)', () => {
  it('stores each attempt of a joint write as recordAttempt would, per endpoint', async () => {
    await endpoint('wh_0000000a', 4);
    await endpoint('wh_0000000b', 4);
    const base = Date.parse('2026-11-21T10:00:00.000Z');
    // Added in one turn of the event loop: one statement carries them all.
    const stored = await Promise.all([
      state.recordAttempt(attempt('wh_0000000a', base + 5, false, 2)),
      state.recordAttempt(attempt('wh_0000000a', base + 9, true)),
      state.recordAttempt(attempt('wh_0000000a', base + 1, false)),
      state.recordAttempt(attempt('wh_0000000b', base + 7, false)),
      // An endpoint that is gone (deleted meanwhile): nothing stored for it, no error.
      state.recordAttempt(attempt('wh_0000000c', base + 8, true)),
    ]);
    expect(stored).toEqual([true, true, true, true, false]);
    const rows = await pool.query(
      `SELECT endpoint_id, event_id, attempt, attempted_at, succeeded, terminal, status_code, error, latency_ms, replay,
         next_attempt_at
       FROM webhook_delivery_attempts ORDER BY endpoint_id, attempted_at`,
    );
    expect(rows.rows).toEqual([
      attempt('wh_0000000a', base + 1, false),
      attempt('wh_0000000a', base + 5, false, 2),
      attempt('wh_0000000a', base + 9, true),
      attempt('wh_0000000b', base + 7, false),
    ]);
    // A success resets the count; the latest attempt time wins.
    expect(await row('wh_0000000a')).toEqual({
      consecutive_failures: 0,
      last_delivery_at: new Date(base + 9),
    });
    expect(await row('wh_0000000b')).toEqual({
      consecutive_failures: 4,
      last_delivery_at: new Date(base + 7),
    });
    // An older attempt written later never moves last_delivery_at back.
    await state.recordAttempt(attempt('wh_0000000b', base + 2, false, 3));
    expect((await row('wh_0000000b'))?.last_delivery_at).toEqual(new Date(base + 7));
  });

  it('keeps a string that needs escaping, and a null status, exactly', async () => {
    await endpoint('wh_0000000d');
    const odd = {
      ...attempt('wh_0000000d', 1_000, false),
      error: 'tls error: "quoted" \\ ü\n',
      status_code: null,
    };
    await state.recordAttempt(odd);
    const { rows } = await pool.query(
      'SELECT error, status_code FROM webhook_delivery_attempts WHERE endpoint_id = $1',
      ['wh_0000000d'],
    );
    expect(rows).toEqual([{ error: odd.error, status_code: null }]);
  });

  it('stores the rest of a joint write when Postgres refuses one attempt', async () => {
    await endpoint('wh_0000000e');
    const good = [attempt('wh_0000000e', 2_001, true), attempt('wh_0000000e', 2_002, true)];
    const bad = { ...attempt('wh_0000000e', 2_003, true), event_id: 'not-a-uuid' };
    const results = await Promise.allSettled([good[0]!, bad, good[1]!].map((a) => state.recordAttempt(a)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { rows } = await pool.query(
      'SELECT event_id FROM webhook_delivery_attempts WHERE endpoint_id = $1 ORDER BY attempted_at',
      ['wh_0000000e'],
    );
    expect(rows.map((r: { event_id: string }) => r.event_id)).toEqual(good.map((a) => a.event_id));
  });

  it('stores an attempt recorded before only once, and says so', async () => {
    await endpoint('wh_0000000f', 3);
    const first = attempt('wh_0000000f', 3_000, false);
    expect(await state.recordAttempt(first)).toBe(true);
    // Redone after a crash: the same attempt again, alone and twice within one write.
    const again = { ...first, attempted_at: new Date(3_500), succeeded: true, status_code: 204, error: null };
    expect(await Promise.all([state.recordAttempt(again), state.recordAttempt(again)])).toEqual([
      false,
      false,
    ]);
    const twice = attempt('wh_0000000f', 4_000, false, 2);
    expect(await Promise.all([state.recordAttempt(twice), state.recordAttempt(twice)])).toEqual([
      true,
      false,
    ]);
    const { rows } = await pool.query(
      'SELECT attempt, succeeded FROM webhook_delivery_attempts WHERE endpoint_id = $1 ORDER BY attempt',
      ['wh_0000000f'],
    );
    expect(rows).toEqual([
      { attempt: 1, succeeded: false },
      { attempt: 2, succeeded: false },
    ]);
    // Nothing stored by the redone success: the endpoint's health is as the stored attempts left it.
    expect(await row('wh_0000000f')).toEqual({ consecutive_failures: 3, last_delivery_at: new Date(4_000) });
  });
});

describe('deliveryState.terminalFailure (settled once)', () => {
  const terminal = (endpointId: string, at: number): DeliveryAttempt => ({
    ...attempt(endpointId, at, false, 6),
    terminal: true,
  });
  const keyOf = (a: DeliveryAttempt) => ({
    endpoint_id: a.endpoint_id,
    event_id: a.event_id,
    attempt: a.attempt,
    replay: a.replay,
  });
  const target = { tenantId: 'tenant-a', url: 'https://example.com/hook' };

  it('counts one terminal attempt once, however many runs of its delivery settle it', async () => {
    await endpoint('wh_00000010', 2);
    const last = terminal('wh_00000010', 5_000);
    expect(await state.recordAttempt(last)).toBe(true);
    expect(await state.settled(keyOf(last))).toBe(false);
    const runs = await Promise.all(
      [1, 2, 3].map(() =>
        state.terminalFailure({ ...target, id: 'wh_00000010' }, keyOf(last), 'consecutive_failures'),
      ),
    );
    expect(runs).toEqual([false, false, false]);
    expect(await state.settled(keyOf(last))).toBe(true);
    expect((await row('wh_00000010'))?.consecutive_failures).toBe(3);
  });

  it('lets a redo settle an attempt whose first run stopped after recording it', async () => {
    await endpoint('wh_00000011', 9);
    const last = terminal('wh_00000011', 6_000);
    // The first run recorded the attempt and then died: nothing was counted.
    expect(await state.recordAttempt(last)).toBe(true);
    expect(await state.recordAttempt(last)).toBe(false);
    expect(await state.settled(keyOf(last))).toBe(false);
    expect(
      await state.terminalFailure({ ...target, id: 'wh_00000011' }, keyOf(last), 'consecutive_failures'),
    ).toBe(true);
    const { rows } = await pool.query(
      'SELECT active, consecutive_failures FROM webhook_endpoints WHERE id = $1',
      ['wh_00000011'],
    );
    expect(rows[0]).toEqual({ active: false, consecutive_failures: 10 });
  });

  it('counts nothing for an attempt never recorded, or whose endpoint is gone', async () => {
    await endpoint('wh_00000012', 1);
    const never = terminal('wh_00000012', 7_000);
    expect(
      await state.terminalFailure({ ...target, id: 'wh_00000012' }, keyOf(never), 'consecutive_failures'),
    ).toBe(false);
    expect((await row('wh_00000012'))?.consecutive_failures).toBe(1);
    const gone = terminal('wh_00000013', 8_000);
    expect(
      await state.terminalFailure({ ...target, id: 'wh_00000013' }, keyOf(gone), 'consecutive_failures'),
    ).toBe(false);
  });

  it('leaves nothing to settle for an attempt whose first run succeeded', async () => {
    await endpoint('wh_00000014', 0);
    const ok = { ...attempt('wh_00000014', 9_000, true, 6), terminal: false };
    expect(await state.recordAttempt(ok)).toBe(true);
    expect(await state.settled(keyOf(ok))).toBe(true);
  });
});
