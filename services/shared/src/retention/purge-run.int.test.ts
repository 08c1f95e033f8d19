import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPublisher } from '@audit/shared/audit-topic';
import { allTopics, auditEventCodec, topics } from '@audit/shared/contract';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import { deleteTopics, DurableProducer, ensureTopics } from '@audit/shared/platform';
import { uniqueNames } from '../../../../test/support/names.js';
import { migratedPostgres } from '../../../../test/support/postgres.js';
import { clickhouseSettings, testClickHouse, testKafka } from '../../../../test/support/stack.js';
import { purgeTenant, type PurgeContext } from './purge-run.js';
import { serverDeleter } from './purge.clickhouse.js';
import { PurgeBusyError, purgeRepository } from './purge.repository.js';
import { retentionRepository } from './retention.repository.js';

// A scheduled purge decides under the tenant's lock, from its last run as it stands then.
const names = uniqueNames('purgerun');
const ch = testClickHouse(names);
const topicSet = topics(names.topicPrefix, 1);
const producer = new DurableProducer(testKafka());
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
let pool: pg.Pool;
const published: unknown[] = [];
let ctx: PurgeContext;
const nothing = async () => undefined;

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
  postgres = await migratedPostgres(names);
  pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  await ensureTopics(testKafka(), allTopics(topicSet), 1);
  await producer.connect();
  const publisher = auditPublisher({
    producer,
    topic: topicSet.auditEvents.name,
    codec: auditEventCodec(),
    clock: Date.now,
  });
  ctx = {
    pool,
    // Published to the test's audit topic, and noted here: whether a run writes its event at all.
    publish: async (event) => {
      published.push(event);
      return publisher.publish([event]);
    },
    actor: { user_id: 'custodian', user_role: 'service', source_ip: '', user_agent: 'test' },
    clickhouse: ch,
    database: names.database,
    files: { remove: nothing, size: async () => null, describe: () => 'nowhere' },
    writer: { deletes: serverDeleter(ch), settleSettings: {} },
    now: Date.now,
  };
});
afterAll(async () => {
  await producer.disconnect();
  await deleteTopics(
    testKafka(),
    allTopics(topicSet).map((t) => t.name),
  );
  await pool?.end();
  await postgres?.drop();
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

describe('a scheduled purge', () => {
  it('runs only while still due, and purges a tenant whose last run failed though its events are gone', async () => {
    const tenant = `${names.tenant}-a`;
    await retentionRepository(pool).setPolicy(tenant, { min_days: 30, max_days: 400 }, 'ops', nothing);
    const purges = purgeRepository(pool);
    const failed = randomUUID();
    await purges.started(tenant, { purge_id: failed, purged_before: 1, holds: 0, started_by: 'custodian' });
    await purges.finished(failed, { error: 'ClickHouse error 341' });
    const seen: unknown[] = [];

    // Another custodian purged it since it was found due: nothing is run, written or recorded.
    const notDue = purgeTenant(ctx, tenant, {
      scheduled: {
        due: (last) => {
          seen.push(last?.status);
          return false;
        },
      },
    });
    await expect(notDue).rejects.toBeInstanceOf(PurgeBusyError);
    expect(seen).toEqual(['failed']);
    expect(published).toEqual([]);
    expect((await purges.status(tenant, 10)).runs).toHaveLength(1);

    // No event to remove, but the failed run may have left the filter index or the summary: it runs again.
    const again = await purgeTenant(ctx, tenant, { scheduled: { due: () => true } });
    expect(again).toMatchObject({ purged: 0, dry_run: false, purge_id: expect.any(String) });
    expect(published).toHaveLength(1);
    expect((await purges.status(tenant, 10)).runs[0]).toMatchObject({ status: 'succeeded', purged: 0 });

    // Now that its last run succeeded, nothing to remove means no run at all.
    const quiet = await purgeTenant(ctx, tenant, { scheduled: { due: () => true } });
    expect(quiet.purge_id).toBeNull();
    expect(published).toHaveLength(1);
    expect((await purges.status(tenant, 10)).runs).toHaveLength(2);
  });
});
