import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '@audit/shared/migrations';
import {
  deliveryAttemptsRepository as attempts,
  type AttemptFilters,
  type DeliveryAttempt,
  type ListedAttempt,
} from '@audit/shared/webhooks';
import { sweepAttempts } from '../../services/dispatcher/src/adapters/attempts-retention.sweeper.js';
import { uniqueNames } from '../support/names.js';
import { freshPostgres } from '../support/postgres.js';

const names = uniqueNames('attemptsrepo');
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;

const DAY_MS = 86_400_000;
const T0 = Date.UTC(2026, 10, 21, 9, 30);
const EVENT_A = randomUUID();
const EVENT_B = randomUUID();

let endpoints = 0;
async function endpoint(): Promise<string> {
  const id = `wh_${(++endpoints).toString(16).padStart(8, '0')}`;
  await pool.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, event_filter, description, secret_sealed)
     VALUES ($1, $2, 'https://siem.example.com/hook', '{}', '', '\\x00')`,
    [id, names.tenant],
  );
  return id;
}

const attempt = (endpoint_id: string, at: number, over: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  endpoint_id,
  event_id: randomUUID(),
  attempt: 1,
  attempted_at: new Date(at),
  succeeded: true,
  terminal: false,
  status_code: 204,
  error: null,
  latency_ms: 5,
  replay: false,
  next_attempt_at: null,
  ...over,
});

/** Every attempt the filters select, page after page of `limit`, as the gateway pages them. */
async function readAll(endpointId: string, filters: AttemptFilters, limit: number): Promise<ListedAttempt[]> {
  const all: ListedAttempt[] = [];
  for (let after = null as ListedAttempt | null; ;) {
    const page = await attempts.page(
      pool,
      endpointId,
      filters,
      after && { attemptedAtUs: after.attempted_at_us, id: after.id },
      limit,
    );
    all.push(...page);
    if (page.length < limit) return all;
    after = page.at(-1)!;
  }
}

const ids = (rows: ListedAttempt[]) => rows.map((r) => r.id);
const sortedNewestFirst = (rows: ListedAttempt[]) =>
  [...rows].sort((a, b) => b.attempted_at_us - a.attempted_at_us || Number(BigInt(b.id) - BigInt(a.id)));

beforeAll(async () => {
  postgres = await freshPostgres(names);
  await migratePostgres(postgres.url);
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
});

afterAll(async () => {
  await pool.end();
  await postgres.drop();
});

describe('delivery attempts in Postgres (real Postgres)', () => {
  it('reads newest first, ties broken by id, and pages through ties of the time without loss or repeat', async () => {
    const id = await endpoint();
    const other = await endpoint();
    // Seven attempts in one millisecond, three more each a second apart, written as the dispatcher writes them.
    const same = Array.from({ length: 7 }, () => attempt(id, T0));
    const spread = [1, 2, 3].map((s) => attempt(id, T0 + s * 1000));
    expect(await attempts.record(pool, [...same, ...spread, attempt(other, T0 + 500)])).toEqual(
      Array(11).fill(true),
    );
    // Two more in that millisecond, apart by microseconds (a writer of finer times): still a total order.
    await pool.query(
      `INSERT INTO webhook_delivery_attempts (endpoint_id, event_id, attempt, attempted_at, succeeded, latency_ms)
       VALUES ($1, $2, 1, $3::timestamptz + interval '700 microseconds', true, 1),
              ($1, $2, 2, $3::timestamptz + interval '300 microseconds', true, 1)`,
      [id, randomUUID(), new Date(T0)],
    );
    const whole = await attempts.page(pool, id, {}, null, 100);
    expect(whole).toHaveLength(12);
    expect(ids(whole)).toEqual(ids(sortedNewestFirst(whole)));
    expect(whole.slice(0, 3).map((r) => r.attempted_at.getTime())).toEqual([T0 + 3000, T0 + 2000, T0 + 1000]);
    expect(whole.slice(3, 5).map((r) => r.attempted_at_us - T0 * 1000)).toEqual([700, 300]);
    // Ids descending within the millisecond written at once.
    const tied = whole.slice(5).map((r) => Number(r.id));
    expect(tied).toEqual([...tied].sort((a, b) => b - a));
    for (const limit of [1, 2, 3, 5, 12]) expect(ids(await readAll(id, {}, limit))).toEqual(ids(whole));
  });

  it('filters by event (normal and replayed attempts alike), outcome and time, and they combine', async () => {
    const id = await endpoint();
    const other = await endpoint();
    const rows = [
      attempt(id, T0, { event_id: EVENT_A, succeeded: false, status_code: 503, error: 'status 503' }),
      attempt(id, T0 + 1000, {
        event_id: EVENT_A,
        attempt: 2,
        succeeded: false,
        status_code: null,
        error: 'timeout after 2000 ms',
        next_attempt_at: new Date(T0 + 61_000),
      }),
      attempt(id, T0 + 2000, { event_id: EVENT_A, attempt: 3 }),
      attempt(id, T0 + 3000, { event_id: EVENT_A, replay: true }),
      attempt(id, T0 + 4000, { event_id: EVENT_B, succeeded: false, terminal: true, status_code: 500 }),
      attempt(other, T0 + 1000, { event_id: EVENT_A }),
    ];
    await attempts.record(pool, rows);
    const read = async (filters: AttemptFilters) =>
      (await readAll(id, filters, 2)).map((r) => `${r.event_id === EVENT_A ? 'A' : 'B'}${r.attempt}`);

    expect(await read({})).toEqual(['B1', 'A1', 'A3', 'A2', 'A1']);
    expect(await read({ eventId: EVENT_A })).toEqual(['A1', 'A3', 'A2', 'A1']);
    expect(await read({ eventId: randomUUID() })).toEqual([]);
    expect(await read({ succeeded: true })).toEqual(['A1', 'A3']);
    expect(await read({ succeeded: false })).toEqual(['B1', 'A2', 'A1']);
    expect(await read({ since: T0 + 1000 })).toEqual(['B1', 'A1', 'A3', 'A2']);
    expect(await read({ until: T0 + 1000 })).toEqual(['A1']);
    expect(await read({ since: T0 + 1000, until: T0 + 3000 })).toEqual(['A3', 'A2']);
    expect(await read({ eventId: EVENT_A, succeeded: false, since: T0 + 500 })).toEqual(['A2']);

    // Every stored field comes back as written.
    const [second] = await attempts.page(pool, id, { eventId: EVENT_A, succeeded: false }, null, 1);
    expect(second).toMatchObject({
      event_id: EVENT_A,
      attempt: 2,
      attempted_at: new Date(T0 + 1000),
      attempted_at_us: (T0 + 1000) * 1000,
      succeeded: false,
      terminal: false,
      status_code: null,
      error: 'timeout after 2000 ms',
      latency_ms: 5,
      next_attempt_at: new Date(T0 + 61_000),
      replay: false,
    });
  });

  it('deletes attempts past their retention in bounded statements, never one that may still be retried', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    // The other tests' attempts (at T0) are younger than any cutoff here: only this test's are deleted.
    const now = T0 + DAY_MS;
    const old = [
      ...Array.from({ length: 14 }, (_, i) => attempt(a, now - 31 * DAY_MS - i)),
      ...Array.from({ length: 11 }, (_, i) => attempt(b, now - 40 * DAY_MS - i)),
    ];
    const kept = [attempt(a, now - 29 * DAY_MS), attempt(b, now - 3 * DAY_MS), attempt(b, now)];
    await attempts.record(pool, [...old, ...kept]);
    const left = async () =>
      (
        await pool.query<{ n: string }>(
          'SELECT count(*) AS n FROM webhook_delivery_attempts WHERE endpoint_id = ANY($1)',
          [[a, b]],
        )
      ).rows[0]!.n;
    const deps = {
      pool,
      retentionDays: 30,
      longestWindowMs: 5 * DAY_MS,
      clock: () => now,
      logger: pino({ level: 'silent' }),
      stopping: () => false,
    };

    // A shutdown stops the pass between two statements.
    expect(await sweepAttempts({ ...deps, batch: 10, stopping: () => true })).toBe(10);
    expect(await left()).toBe('18');
    // Ten rows a statement: two statements take the other fifteen, the second one short.
    expect(await sweepAttempts({ ...deps, batch: 10 })).toBe(15);
    expect(await left()).toBe('3');
    expect(await sweepAttempts(deps)).toBe(0);
    // A retention of one day still keeps what a retry may need (the longest retry window, five days here).
    expect(await sweepAttempts({ ...deps, retentionDays: 1 })).toBe(1);
    const rest = await attempts.page(pool, b, {}, null, 10);
    expect(rest.map((r) => r.attempted_at.getTime())).toEqual([now, now - 3 * DAY_MS]);
  });
});
