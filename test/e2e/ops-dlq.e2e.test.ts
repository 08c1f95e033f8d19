import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AuditEventRecord,
  loadSchemaVersions,
  schemaVersion,
  singleObjectCodec,
} from '@audit/shared/contract';
import { DurableProducer } from '@audit/shared/platform';
import { sampleRecord } from '@audit/shared/test-support';
import { compressedSchedule, dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { LOOPBACK_TARGETS, projectorService } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver } from '../support/webhook-receiver.js';

const fx = pipelineFixture('opsdlq');
const { names } = fx;
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const dispatcher = dispatcherFixture(names, gw, {
  WEBHOOK_RETRY_DELAYS: compressedSchedule(150),
  WEBHOOK_RETRY_JITTER: '0',
  WEBHOOK_TIMEOUT_MS: '2000',
});
// Down until the test "fixes" it; /new always answers.
let receiverDown = true;
const receiver = await webhookReceiver((path) => (path === '/new' || !receiverDown ? 204 : 503));
afterAll(() => receiver.close());

const run = opsCli(names, () => gw.databaseUrl());
async function ops(...argv: string[]) {
  const res = await run([...argv, '--json']);
  expect(res.code, res.err).toBe(0);
  return res.json<Record<string, unknown> & { records: Record<string, unknown>[] }>();
}

// Only the test's own events: an endpoint's own admin.webhook.create event would match an empty filter too.
async function endpoint(key: string, path: string) {
  const res = await gw.send('POST', '/audit/webhooks', key, {
    url: receiver.url(path),
    event_filter: ['test.'],
  });
  expect(res.status, res.text).toBe(201);
  const body = JSON.parse(res.text) as { endpoint: { id: string }; secret: string };
  return { id: body.endpoint.id, secret: body.secret };
}

describe('ops dlq, webhooks', () => {
  it('lists terminal deliveries with origin and error, and redrives them once the receiver is back', async () => {
    const tenant = `${names.tenant}-wh`;
    const key = await gw.mint(tenant, 'webhooks:write');
    const first = await endpoint(key, '/siem');
    const sent = Array.from({ length: 3 }, (_, i) => ({ ...makeEvent(tenant, i), action: 'test.read' }));
    expect((await ingest(fx.ingest.url, names.ingestToken, sent)).status).toBe(202);
    const ids = new Set<string>(sent.map((e) => e.event_id));

    const listed = await waitFor('3 dead letters', async () => {
      const list = await ops('dlq', 'list', '--queue', 'webhooks', '--tenant', tenant);
      return list.matching === 3 && list;
    });
    for (const r of listed.records) {
      expect(ids.has(r.event_id as string)).toBe(true);
      expect(r).toMatchObject({ endpoint_id: first.id, attempts: 6, error: 'status 503', redriven_at: null });
      expect(r.origin).toMatchObject({ topic: fx.topics.auditEvents.name });
    }

    receiverDown = false;
    const fixedAt = Date.now();
    const redrive = await ops('dlq', 'redrive', '--queue', 'webhooks', '--tenant', tenant);
    expect((redrive.redriven as unknown[]).length).toBe(3);
    const delivered = await waitFor('redriven deliveries', async () => {
      const after = receiver.at('/siem').filter((r) => r.at >= fixedAt && ids.has(r.id));
      return new Set(after.map((r) => r.id)).size === 3 && after;
    });
    for (const r of delivered) expect(independentlyVerified(r, first.secret)).toBe(true);
    const replays = await waitFor('replay attempts recorded', async () => {
      const { rows } = await dispatcher
        .db()
        .query(
          'SELECT event_id FROM webhook_delivery_attempts WHERE endpoint_id = $1 AND replay AND succeeded',
          [first.id],
        );
      return rows.length === 3 && rows;
    });
    expect(new Set(replays.map((r) => r.event_id as string))).toEqual(ids);

    // Redriven once: nothing is pending, and a second redrive sends nothing.
    expect((await ops('dlq', 'list', '--queue', 'webhooks', '--tenant', tenant)).matching).toBe(0);
    const again = await ops('dlq', 'redrive', '--queue', 'webhooks', '--tenant', tenant);
    expect(again.redriven).toEqual([]);
  });

  it("sends an inactive endpoint's dead letters to its replacement, and only when asked", async () => {
    const tenant = `${names.tenant}-repl`;
    const key = await gw.mint(tenant, 'webhooks:write');
    receiverDown = true;
    const old = await endpoint(key, '/old');
    const event = { ...makeEvent(tenant, 0), action: 'test.read' };
    expect((await ingest(fx.ingest.url, names.ingestToken, [event])).status).toBe(202);
    await waitFor('a dead letter', async () => {
      const list = await ops('dlq', 'list', '--queue', 'webhooks', '--tenant', tenant);
      return list.matching === 1;
    });
    expect((await gw.send('POST', `/audit/webhooks/${old.id}/disable`, key)).status).toBe(200);
    const replacement = await endpoint(key, '/new');

    const refused = await ops('dlq', 'redrive', '--queue', 'webhooks', '--tenant', tenant);
    expect(refused.redriven).toEqual([]);
    expect(refused.skipped).toEqual([
      expect.objectContaining({ reason: expect.stringContaining(`endpoint ${old.id} is inactive`) }),
    ]);
    const moved = await ops(
      'dlq',
      'redrive',
      '--queue',
      'webhooks',
      '--endpoint',
      old.id,
      '--to',
      replacement.id,
    );
    expect(moved.redriven).toEqual([
      expect.objectContaining({ endpoint_id: replacement.id, event_id: event.event_id }),
    ]);
    const got = await waitFor('delivery to the replacement', async () =>
      receiver.at('/new').find((r) => r.id === event.event_id),
    );
    expect(independentlyVerified(got, replacement.secret)).toBe(true);
  });
});

describe('ops dlq, projector', () => {
  it('lists a record of an unknown schema version with its origin, and stores it after the fix and a redrive', async () => {
    // A producer already on the contract's next version (one added, defaulted field) that this projector lacks.
    const dir = mkdtempSync(join(tmpdir(), 'schemas-'));
    const shipped = loadSchemaVersions('audit-event');
    const newest = shipped.at(-1)!;
    const nextSchema = newest.type.schema({ exportAttrs: true }) as { fields: unknown[] };
    nextSchema.fields.push({ name: 'ticket_ref', type: 'string', default: '' });
    const next = schemaVersion(newest.version + 1, nextSchema as never);
    const tenant = `${names.tenant}-proj`;
    const record = { ...sampleRecord({ tenant_id: tenant }), ticket_ref: 'T-1' } as AuditEventRecord;
    const producer = new DurableProducer(fx.kafka);
    await producer.connect();
    const [meta] = await producer.send({
      topic: fx.topics.auditEvents.name,
      messages: [{ key: tenant, value: singleObjectCodec<AuditEventRecord>([next]).encode(record) }],
    });
    await producer.disconnect();

    const listed = await waitFor('the dead letter', async () => {
      const list = await ops('dlq', 'list', '--queue', 'projector', '--tenant', tenant);
      return list.matching === 1 && list.records[0]!;
    });
    expect(listed).toMatchObject({
      stage: 'decode',
      error: expect.stringContaining('unknown schema fingerprint'),
      origin: { topic: fx.topics.auditEvents.name, partition: meta!.partition, offset: meta!.baseOffset },
    });

    // The fix: the projector is given the contract's next version beside the ones it shipped with.
    mkdirSync(join(dir, 'audit-event'));
    for (const { version } of shipped) {
      const file = `v${version}.avsc`;
      copyFileSync(
        new URL(`../../schemas/audit-event/${file}`, import.meta.url),
        join(dir, 'audit-event', file),
      );
    }
    writeFileSync(join(dir, 'audit-event', `v${next.version}.avsc`), JSON.stringify(nextSchema));
    await fx.projector.stop();
    const fixed = projectorService(names, { SCHEMAS_DIR: dir });
    await fixed.start();
    try {
      const redrive = await ops('dlq', 'redrive', '--queue', 'projector', '--tenant', tenant);
      expect(redrive.redriven).toEqual([expect.objectContaining({ sent_to: fx.topics.auditEvents.name })]);
      await waitFor('the event stored', async () => {
        const result = await fx.ch.query({
          query: `SELECT count() AS n FROM audit_events WHERE tenant_id = '${tenant}' AND event_id = '${record.event_id}'`,
          format: 'JSONEachRow',
        });
        const [row] = await result.json<{ n: string }>();
        return Number(row?.n) === 1;
      });
      expect((await ops('dlq', 'list', '--queue', 'projector', '--tenant', tenant)).matching).toBe(0);
    } finally {
      await fixed.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
