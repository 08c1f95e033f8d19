import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, makeEvent } from '../support/events.js';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { custodianService, exporterService, LOOPBACK_TARGETS, notaryService } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

const { names, ingest: ingestProc, projector, databaseUrl } = pipelineFixture('metrics', {}, { trees: true });
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS, databaseUrl });
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(300),
  WEBHOOK_RETRY_JITTER: '0',
});
// The first attempt of each event fails, the retry succeeds: one delivery in each of tiers 0 and 1.
const receiver = await webhookReceiver((_path, _id, seen) => (seen === 0 ? 503 : 204));
afterAll(() => receiver.close());

const event = makeEvent(names.tenant, 0);
let key = '';
let exporter: ReturnType<typeof exporterService> | undefined;
let notary: ReturnType<typeof notaryService> | undefined;
let custodian: ReturnType<typeof custodianService> | undefined;
afterAll(async () => {
  await exporter?.stop();
  await notary?.stop();
  await custodian?.stop();
});

async function scrape(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of the sample named `name` whose labels include `labels`, whatever their order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:\\.|[^"\\])*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

// The `promtool check metrics` linter (infra/promlint), built with Go on its first run.
let promlint: string;
beforeAll(async () => {
  const script = fileURLToPath(new URL('../../scripts/ensure-go-tool.sh', import.meta.url));
  promlint = (await promisify(execFile)('bash', [script, 'promlint'])).stdout.trim();
}, 600_000);

/** What `promtool check metrics` says of `text`: its exit code and its lint findings, one per line. */
function promtoolCheck(text: string) {
  const run = spawnSync(promlint, [], { input: text, encoding: 'utf8' });
  return { status: run.status, findings: `${run.stdout}${run.stderr}`.trim() };
}

function metricsUrls(): Record<string, string> {
  return {
    ingest: `${ingestProc.url}/metrics`,
    gateway: gw.metricsUrl(),
    projector: `${projector.url}/metrics`,
    dispatcher: dispatcher.process().metricsUrl,
    exporter: exporter!.metricsUrl,
    notary: notary!.metricsUrl,
    custodian: custodian!.metricsUrl,
  };
}

beforeAll(async () => {
  exporter = exporterService(names, gw.databaseUrl());
  await exporter.start();
  notary = notaryService(names, gw.databaseUrl());
  await notary.start();
  custodian = custodianService(names, gw.databaseUrl(), { RETENTION_PURGE_CHECK_MS: '200' });
  await custodian.start();
  key = await gw.mint(names.tenant, 'audit:read,webhooks:write');
  const created = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url('/hook'),
    event_filter: ['phi.'],
  });
  expect(created.status, created.text).toBe(201);
  expect((await ingest(ingestProc.url, names.ingestToken, [event])).status).toBe(202);
  await waitFor(
    'the event readable',
    async () => (await gw.get(`/audit/events/${event.event_id}`, key)).status === 200,
  );
  expect((await gw.get(`/audit/events/${event.event_id}`)).status).toBe(401);
  await waitFor('the retried delivery', async () => receiver.at('/hook').length === 2);
});

describe('GET /metrics', () => {
  it('ingest: requests by route and status, events by outcome', async () => {
    const text = await scrape(`${ingestProc.url}/metrics`);
    expect(sample(text, 'ingest_events_total', { service: 'ingest', outcome: 'accepted' })).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        route: '/internal/v1/events',
        method: 'POST',
        status_code: '202',
      }),
    ).toBe(1);
    expect(sample(text, 'process_cpu_user_seconds_total', { service: 'ingest' })).toBeGreaterThan(0);
  });

  it('gateway: on its own listener only, with auth failures, rate limits, route patterns and purges', async () => {
    expect((await fetch(`${gw.url()}/metrics`)).status).toBe(404);
    const text = await scrape(gw.metricsUrl());
    expect(sample(text, 'auth_failures_total', { service: 'gateway', reason: 'missing' })).toBe(1);
    expect(sample(text, 'rate_limit_rejections_total', { class: 'read' })).toBe(0);
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        route: '/api/v2/public/audit/events/:event_id',
        status_code: '200',
      }),
    ).toBe(1);
    // The test's own database has no purge run.
    expect(sample(text, 'retention_purge_runs', { status: 'succeeded' })).toBe(0);
    expect(sample(text, 'retention_purged_events')).toBe(0);
    expect(sample(text, 'retention_purge_running_seconds')).toBe(0);
  });

  it("projector: writes, inserts, events by outcome, the trees' appends and its consumer lag", async () => {
    const text = await waitFor('the event and the webhook creation appended', async () => {
      const t = await scrape(`${projector.url}/metrics`);
      return sample(t, 'projector_tree_events_total', { outcome: 'appended' })! >= 2 && t;
    });
    expect(sample(text, 'projector_tree_events_total', { outcome: 'known' })).toBe(0);
    expect(sample(text, 'projector_tree_append_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'projector_batch_size_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'projector_insert_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    // The gateway's own audit event of the webhook creation is stored too.
    expect(sample(text, 'projector_events_total', { outcome: 'inserted' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'projector_dead_letters_total', { stage: 'decode' })).toBe(0);
    expect(
      sample(text, 'kafka_consumer_lag', { group: names.groupId, partition: '0' }),
    ).toBeGreaterThanOrEqual(0);
  });

  it('dispatcher: deliveries by outcome and tier, attempt durations, retry-tier depth and lag', async () => {
    const url = dispatcher.process().metricsUrl;
    const text = await waitFor('the delivery counted', async () => {
      const t = await scrape(url);
      return sample(t, 'webhook_deliveries_total', { outcome: 'delivered', tier: '1' }) === 1 && t;
    });
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'retry', tier: '0' })).toBe(1);
    expect(sample(text, 'webhook_delivery_duration_seconds_count', { result: 'failure' })).toBe(1);
    expect(sample(text, 'webhook_delivery_duration_seconds_count', { result: 'success' })).toBe(1);
    expect(sample(text, 'webhook_dead_letters_total')).toBe(0);
    expect(sample(text, 'webhook_auto_disables_total')).toBe(0);
    for (const tier of ['1', '2', '3', '4', '5']) {
      expect(sample(text, 'webhook_retry_tier_depth', { tier })).toBeGreaterThanOrEqual(0);
    }
    expect(
      sample(text, 'kafka_consumer_lag', { group: `dispatcher-${names.id}`, partition: '0' }),
    ).toBeGreaterThanOrEqual(0);
  });

  it('notary: checkpoints, their lag and whether it can sign', async () => {
    const text = await scrape(notary!.metricsUrl);
    // No signing key in this test's Postgres: nothing is signed, and the wait shows.
    expect(sample(text, 'notary_checkpoints_total')).toBe(0);
    expect(sample(text, 'notary_signing_key_ready')).toBe(0);
    expect(sample(text, 'notary_checkpoint_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('custodian: purge checks by outcome, and when its last pass ended', async () => {
    // No tenant has a policy with a maximum here: passes end, and nothing is checked.
    const text = await waitFor('a pass of the custodian', async () => {
      const t = await scrape(custodian!.metricsUrl);
      return (sample(t, 'custodian_purge_pass_timestamp_seconds') ?? 0) > 0 ? t : undefined;
    });
    for (const outcome of ['purged', 'nothing', 'busy', 'failed']) {
      expect(sample(text, 'custodian_purge_checks_total', { outcome })).toBe(0);
    }
  });

  it('never labels with tenants, keys, event ids or URLs', async () => {
    const texts = await Promise.all(Object.values(metricsUrls()).map(scrape));
    for (const text of texts) {
      for (const secret of [names.tenant, event.event_id, key.split('_')[2]!, receiver.url('/hook')]) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('the linter reports what `promtool check metrics` reports (Prometheus v0.316, the same exit code)', () => {
    expect(promtoolCheck('# HELP x x\n# TYPE x counter\nx 1\n')).toEqual({
      status: 3,
      findings: 'x counter metrics should have "_total" suffix',
    });
  });

  it('passes `promtool check metrics` on every service, counters and histograms with samples', async () => {
    const urls = Object.entries(metricsUrls());
    const checks = await Promise.all(
      urls.map(async ([service, url]) => ({ service, ...promtoolCheck(await scrape(url)) })),
    );
    expect(checks).toEqual(urls.map(([service]) => ({ service, status: 0, findings: '' })));
  });
});
