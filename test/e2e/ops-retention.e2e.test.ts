import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { setTopicLimit } from '@audit/shared/audit-topic';
import { sleep } from '@audit/shared/platform';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { waitFor } from '../support/wait-for.js';

// Ingest, projector and gateway as processes, to read each change back from the tenant's trail; the operator CLI
// in-process on the same topics and database.
const fx = pipelineFixture('ops-retention');
const { names } = fx;
const gw = gatewayFixture(names);
const ops = opsCli(names, () => gw.databaseUrl());

const OPERATOR = {
  user_id: 'operator:test',
  user_role: 'operator',
  user_agent: 'audit-ops-cli',
  phi_involved: false,
  success: true,
};
const DEFAULT = {
  min_days: 2192,
  max_days: null,
  version: 0,
  default: true,
  changed_at: null,
  changed_by: null,
};

interface Hold {
  hold_id: string;
  status: string;
  reason: string;
  scope: Record<string, string>;
  created_by: string;
  released_at: string | null;
  released_by: string | null;
  release_reason: string | null;
}

/** The command run with --json, expected to succeed: its output parsed. */
async function ok<T = Record<string, unknown>>(...argv: string[]) {
  const res = await ops([...argv, '--json']);
  expect(res.code, res.err).toBe(0);
  return res.json<T>();
}

/** The command run as given, expected to fail with `code` and `error` named. */
async function failed(code: 1 | 2, argv: string[], error: string, env: Record<string, string> = {}) {
  const res = await ops(argv, env);
  expect(res.code, res.err).toBe(code);
  expect(res.err).toContain(error);
}

const holdIds = async (tenant: string, status: string) =>
  (await ok<{ holds: Hold[] }>('holds', 'list', '--tenant', tenant, '--status', status)).holds.map(
    (h) => h.hold_id,
  );
const created = async (tenant: string, ...argv: string[]) =>
  (await ok<{ hold: Hold }>('holds', 'create', '--tenant', tenant, ...argv)).hold;

/** The tenant's events of an action, newest first, through the API. */
async function trail(key: string, action: string) {
  const res = await gw.get(`/audit/events?action=${action}&limit=1000`, key);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { events: Record<string, unknown>[] }).events;
}

/**
 * The tenant's retention and hold events once `last` (the action of its latest change) has `count` events: the
 * tenant's events share a partition, so those of every earlier change, and any a refusal wrote, are in by then.
 */
async function changesOf(tenant: string, last: string, count: number) {
  const key = await gw.mint(tenant, 'audit:read');
  await waitFor(`${count} ${last} in the trail`, async () => (await trail(key, last)).length === count);
  const [policies, creates, releases] = await Promise.all(
    ['admin.retention.update', 'admin.legal_hold.create', 'admin.legal_hold.release'].map((a) =>
      trail(key, a),
    ),
  );
  return { policies: policies!, creates: creates!, releases: releases! };
}

const detailsOf = (event: Record<string, unknown>) => JSON.parse(String(event.details)) as unknown;

describe('ops retention', () => {
  it('shows the default, sets each version, and records every change in the trail', async () => {
    const tenant = `${names.tenant}-policy`;
    // Only the service writes these actions: a producer's are refused (and the trail below holds none).
    const forged = ['admin.retention.update', 'admin.legal_hold.create'].map((action, i) => ({
      ...makeEvent(tenant, i),
      action,
    }));
    expect((await ingest(fx.ingest.url, names.ingestToken, forged)).status).toBe(422);

    expect(await ok('retention', 'show', '--tenant', tenant)).toEqual({ tenant_id: tenant, ...DEFAULT });
    expect((await ops(['retention', 'show', '--tenant', tenant])).out).toBe(
      `${tenant}: kept at least 2192 days, no maximum (the default policy, never set)`,
    );
    const first = await ok('retention', 'set', '--tenant', tenant, '--min-days', '30', '--max-days', '400');
    expect(first).toMatchObject({
      tenant_id: tenant,
      min_days: 30,
      max_days: 400,
      version: 1,
      default: false,
      changed_by: 'operator:test',
      previous: DEFAULT,
    });
    expect(Date.parse(String(first.changed_at))).toBeGreaterThan(Date.now() - 60_000);
    expect(await ok('retention', 'set', '--tenant', tenant, '--min-days', '3000', '--no-max')).toMatchObject({
      min_days: 3000,
      max_days: null,
      version: 2,
      previous: { min_days: 30, max_days: 400, version: 1, changed_by: 'operator:test' },
    });
    // Set as it is: a version of its own, recorded too.
    const again = await ops(['retention', 'set', '--tenant', tenant, '--min-days', '3000', '--no-max']);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toMatch(
      new RegExp(
        `^${tenant}: kept at least 3000 days, no maximum \\(version 3, set \\S+ by "operator:test"\\)\n` +
          'replacing: kept at least 3000 days, no maximum \\(version 2, ',
      ),
    );
    expect(await ok('retention', 'show', '--tenant', tenant)).toMatchObject({
      min_days: 3000,
      max_days: null,
      version: 3,
      default: false,
    });

    const { policies, creates } = await changesOf(tenant, 'admin.retention.update', 3);
    for (const event of policies) {
      expect(event).toMatchObject({ ...OPERATOR, resource_type: 'retention_policy', resource_id: tenant });
    }
    expect(policies.map(detailsOf)).toEqual([
      { min_days: 3000, max_days: null, version: 3, previous: { min_days: 3000, max_days: null } },
      { min_days: 3000, max_days: null, version: 2, previous: { min_days: 30, max_days: 400 } },
      { min_days: 30, max_days: 400, version: 1, previous: { min_days: 2192, max_days: null } },
    ]);
    expect(creates).toEqual([]);
  });
});

describe('ops holds', () => {
  it('creates, lists and releases holds, once each, and records every change in the trail', async () => {
    const tenant = `${names.tenant}-holds`;
    expect(await ok('holds', 'list', '--tenant', tenant)).toEqual({
      tenant_id: tenant,
      status: 'active',
      holds: [],
    });
    expect((await ops(['holds', 'list', '--tenant', tenant])).out).toBe(`${tenant}: no active holds`);

    const matter = await created(
      tenant,
      ...['--reason', ' Smith v. Acme ', '--patient-id', 'p-1042'],
      ...['--since', '2025-01-01T00:00:00Z', '--until', '2026-01-01T00:00:00+01:00'],
    );
    expect(matter).toEqual({
      hold_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'active',
      reason: 'Smith v. Acme',
      scope: {
        patient_id: 'p-1042',
        since: '2025-01-01T00:00:00.000+00:00',
        until: '2025-12-31T23:00:00.000+00:00',
      },
      created_at: expect.any(String),
      created_by: 'operator:test',
      released_at: null,
      released_by: null,
      release_reason: null,
    });
    const everything = await created(tenant, '--reason', 'state audit');
    expect(everything.scope).toEqual({});
    // An id as events may hold it: the text output must still write no control sequence. (A reason is refused
    // with one, below.)
    const hostile = 'dr.\u001b]0;owned\u0007 \u009b31m';
    const chart = await created(
      tenant,
      ...['--reason', 'chart review', '--user-id', hostile, '--resource-id', 'chart-7'],
    );
    expect(chart).toMatchObject({
      reason: 'chart review',
      scope: { user_id: hostile, resource_id: 'chart-7' },
    });

    expect(await holdIds(tenant, 'active')).toEqual([chart.hold_id, everything.hold_id, matter.hold_id]);
    const table = await ops(['holds', 'list', '--tenant', tenant, '--status', 'all']);
    expect(table.out.split('\n')).toHaveLength(4);
    expect(table.out.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
    expect(table.out).toContain('"dr.\\u001b]0;owned\\u0007 \\u009b31m"');

    const releasing = (id: string, reason: string) =>
      ['holds', 'release', '--tenant', tenant, '--id', id, '--reason', reason] as const;
    const released = await ok(...releasing(matter.hold_id, 'settled'));
    expect(released).toEqual({
      tenant_id: tenant,
      released: true,
      hold: {
        ...matter,
        status: 'released',
        released_at: expect.any(String),
        released_by: 'operator:test',
        release_reason: 'settled',
      },
    });
    // Released already: said, exit 0, left as it was and not recorded again.
    const twice = await ops([...releasing(matter.hold_id, 'again')]);
    expect(twice.code, twice.err).toBe(0);
    expect(twice.out).toContain('(reason "settled") already: nothing changed');
    const upper = matter.hold_id.toUpperCase();
    expect(await ok(...releasing(upper, 'again'))).toEqual({
      ...released,
      released: false,
    });
    await failed(
      1,
      ['holds', 'release', '--tenant', tenant, '--id', randomUUID(), '--reason', 'r'],
      'has no hold',
    );
    // Another tenant's hold is no hold of this one.
    const other = `${names.tenant}-other`;
    await failed(
      1,
      ['holds', 'release', '--tenant', other, '--id', chart.hold_id, '--reason', 'r'],
      'has no hold',
    );

    expect(await holdIds(tenant, 'active')).toEqual([chart.hold_id, everything.hold_id]);
    expect(await holdIds(tenant, 'released')).toEqual([matter.hold_id]);
    expect(await holdIds(tenant, 'all')).toEqual([chart.hold_id, everything.hold_id, matter.hold_id]);
    expect(await holdIds(other, 'all')).toEqual([]);

    // One more change after the repeated release: any event it wrote would be in the trail before this one's.
    await ok('holds', 'release', '--tenant', tenant, '--id', everything.hold_id, '--reason', 'audit closed');
    const { policies, creates, releases } = await changesOf(tenant, 'admin.legal_hold.release', 2);
    for (const event of [...creates, ...releases]) {
      expect(event).toMatchObject({ ...OPERATOR, resource_type: 'legal_hold' });
      // Putting a hold is no access to the patient's records: the patient stays in the details.
      expect(event.patient_id ?? '').toBe('');
    }
    expect(creates.map((e) => [e.resource_id, detailsOf(e)])).toEqual([
      [chart.hold_id, { reason: 'chart review', scope: chart.scope }],
      [everything.hold_id, { reason: 'state audit', scope: {} }],
      [matter.hold_id, { reason: 'Smith v. Acme', scope: matter.scope }],
    ]);
    expect(releases.map((e) => [e.resource_id, detailsOf(e)])).toEqual([
      [everything.hold_id, { reason: 'audit closed', held_because: 'state audit', scope: {} }],
      [matter.hold_id, { reason: 'settled', held_because: 'Smith v. Acme', scope: matter.scope }],
    ]);
    expect(policies).toEqual([]);
  });

  it('refuses a hold past the 100 in force, and lists every page of holds', async () => {
    const tenant = `${names.tenant}-many`;
    // 99 holds in force and 600 released ones, more than a page, written as the repository writes them.
    const db = new pg.Client({ connectionString: gw.databaseUrl() });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO legal_holds (hold_id, tenant_id, reason, created_at, created_by, released_at, released_by,
           release_reason)
         SELECT gen_random_uuid(), $1, 'matter ' || i, now() - i * interval '1 second', 'operator:seed',
           CASE WHEN i > 99 THEN now() END, CASE WHEN i > 99 THEN 'operator:seed' END,
           CASE WHEN i > 99 THEN 'closed' END
         FROM generate_series(1, 699) AS i`,
        [tenant],
      );
    } finally {
      await db.end();
    }
    const last = await created(tenant, '--reason', 'the hundredth');
    await failed(
      1,
      ['holds', 'create', '--tenant', tenant, '--reason', 'one too many'],
      'has 100 holds in force',
    );

    const all = await ok<{ holds: Hold[] }>('holds', 'list', '--tenant', tenant, '--status', 'all');
    expect(all.holds).toHaveLength(700);
    expect(new Set(all.holds.map((h) => h.hold_id)).size).toBe(700);
    expect(all.holds[0]!.hold_id).toBe(last.hold_id);
    expect(all.holds.slice(1).map((h) => h.reason)).toEqual(
      Array.from({ length: 699 }, (_, i) => `matter ${i + 1}`),
    );
    expect(await holdIds(tenant, 'active')).toHaveLength(100);
    expect(await holdIds(tenant, 'released')).toHaveLength(600);

    const { creates } = await changesOf(tenant, 'admin.legal_hold.create', 1);
    expect(creates.map((e) => e.resource_id)).toEqual([last.hold_id]);
  });
});

describe('refusals', () => {
  it('refuses wrong usage with exit 2 before anything changes', async () => {
    const tenant = `${names.tenant}-kept`;
    await ok('retention', 'set', '--tenant', tenant, '--min-days', '100', '--max-days', '200');
    const kept = await created(tenant, '--reason', 'kept');

    const set = (...argv: string[]) => ['retention', 'set', '--tenant', tenant, ...argv];
    await failed(
      2,
      set('--min-days', '0', '--no-max'),
      '--min-days: must be a whole number of days from 1 to 36500',
    );
    await failed(
      2,
      set('--min-days', '36501', '--no-max'),
      '--min-days: must be a whole number of days from 1 to 36500',
    );
    await failed(2, set('--min-days', '30d', '--no-max'), '--min-days: must be a whole number of days');
    await failed(
      2,
      set('--min-days', '100', '--max-days', '99'),
      '--max-days: must not be less than min_days',
    );
    await failed(2, set('--min-days', '100'), '--max-days: is required');
    await failed(2, set('--min-days', '100', '--max-days', '300', '--no-max'), '--no-max: cannot be given');
    await failed(
      2,
      set('--min-days', '100', '--no-max', '--reason', 'r'),
      '--reason does not apply to retention set',
    );
    await failed(
      2,
      ['retention', 'set', '--tenant', 'a b', '--min-days', '1', '--no-max'],
      '--tenant: must be',
    );
    await failed(2, ['retention', 'erase', '--tenant', tenant], 'unknown retention command');
    await failed(2, ['retention', 'purge'], '--tenant: is required');
    await failed(2, ['retention', 'purge', '--tenant', tenant, '--reason', 'r'], '--reason does not apply');

    const create = (...argv: string[]) => ['holds', 'create', '--tenant', tenant, ...argv];
    await failed(2, create(), '--reason: is required');
    await failed(2, create('--reason', '  '), '--reason: must not be empty');
    await failed(2, create('--reason', 'r', '--since', 'last week'), '--since: must be an RFC 3339');
    await failed(
      2,
      create('--reason', 'r', '--since', '2026-02-01T00:00:00Z', '--until', '2026-01-01T00:00:00Z'),
      '--since: must be earlier than until',
    );
    await failed(
      2,
      create('--reason', 'case \u001b]0;owned\u0007'),
      '--reason: must not contain control characters',
    );
    await failed(
      2,
      create('--reason', 'r', '--patient-id', 'p\u0007'),
      '--patient-id: must not contain control',
    );
    await failed(2, create('--reason', 'r', '--patient', 'p-1'), '--patient does not apply to holds create');
    const release = (...argv: string[]) => ['holds', 'release', '--tenant', tenant, ...argv];
    await failed(2, release('--id', 'hold-1', '--reason', 'r'), '--id: must be a hold id, a UUID');
    await failed(2, release('--id', kept.hold_id), '--reason: is required');
    await failed(2, ['holds', 'list', '--tenant', tenant, '--status', 'open'], '--status: must be one of');
    await failed(2, ['holds', 'extend', '--tenant', tenant], 'unknown holds command');

    expect(await ok('retention', 'show', '--tenant', tenant)).toMatchObject({
      min_days: 100,
      max_days: 200,
      version: 1,
    });
    expect(await holdIds(tenant, 'all')).toEqual([kept.hold_id]);
    // One change after the refusals: it is the policy's second version, and the trail holds nothing else.
    await ok('retention', 'set', '--tenant', tenant, '--min-days', '100', '--no-max');
    const { policies, creates, releases } = await changesOf(tenant, 'admin.retention.update', 2);
    expect(policies.map((e) => (detailsOf(e) as { version: number }).version)).toEqual([2, 1]);
    expect(creates.map((e) => e.resource_id)).toEqual([kept.hold_id]);
    expect(releases).toEqual([]);
  });

  it('changes and purges nothing while the audit topic refuses the audit events', async () => {
    const tenant = `${names.tenant}-refused`;
    await ok('retention', 'set', '--tenant', tenant, '--min-days', '100', '--max-days', '200');
    const kept = await created(tenant, '--reason', 'kept');

    // The broker refuses every record larger than a byte, as it refuses any write to a sealed topic, but the
    // publisher, finding it open, does not wait for another generation. Each change of the limit is given the
    // time `topics grow` gives a seal to reach the brokers.
    const topic = fx.topics.auditEvents;
    const admin = fx.kafka.admin();
    await admin.connect();
    try {
      await setTopicLimit(admin, topic.name, '1');
      await sleep(3000);
      // Refused as expected: kafkajs's error log of each refusal is no output of the test.
      const refused = (...argv: string[]) =>
        failed(1, argv, 'the audit event could not be written', { LOG_LEVEL: 'silent' });
      await refused('retention', 'set', '--tenant', tenant, '--min-days', '5', '--max-days', '10');
      await refused('holds', 'create', '--tenant', tenant, '--reason', 'lost');
      await refused('holds', 'release', '--tenant', tenant, '--id', kept.hold_id, '--reason', 'lost');
      await refused('retention', 'purge', '--tenant', tenant);
    } finally {
      await setTopicLimit(admin, topic.name, topic.config['max.message.bytes']!);
      await admin.disconnect();
      await sleep(3000);
    }

    expect(await ok('retention', 'show', '--tenant', tenant)).toMatchObject({
      min_days: 100,
      max_days: 200,
      version: 1,
    });
    expect(await ok<{ holds: Hold[] }>('holds', 'list', '--tenant', tenant, '--status', 'all')).toMatchObject(
      {
        holds: [{ hold_id: kept.hold_id, status: 'active', reason: 'kept' }],
      },
    );
    // The purge refused before it moved the horizon or recorded a run.
    expect(await ok('retention', 'status', '--tenant', tenant)).toEqual({
      tenant_id: tenant,
      purged_before: null,
      runs: [],
    });
    await ok('retention', 'set', '--tenant', tenant, '--min-days', '100', '--max-days', '300');
    const { policies, creates, releases } = await changesOf(tenant, 'admin.retention.update', 2);
    expect(policies.map(detailsOf)).toEqual([
      { min_days: 100, max_days: 300, version: 2, previous: { min_days: 100, max_days: 200 } },
      { min_days: 100, max_days: 200, version: 1, previous: { min_days: 2192, max_days: null } },
    ]);
    expect(creates.map((e) => e.resource_id)).toEqual([kept.hold_id]);
    expect(releases).toEqual([]);
  });
});
