import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { groupCaughtUp } from '../support/kafka-offsets.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import type { ServiceProcess } from '../support/service-process.js';
import { ingestService, LOOPBACK_TARGETS } from '../support/stack.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

const { names, ingest: ingestProc, ch, kafka, topics } = pipelineFixture('drain');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
const dispatcher = dispatcherFixture(names, gw, {});
// Every delivery waits for the test to let it answer.
let answer!: (status: number) => void;
const answered = new Promise<number>((resolve) => (answer = resolve));
const receiver = await webhookReceiver(() => answered);
afterAll(() => receiver.close());
const EVENTS = 300;
let exporter: string;

beforeAll(async () => {
  exporter = await gw.mint(names.tenant, 'audit:export');
  const events = Array.from({ length: EVENTS }, (_, i) => makeEvent(names.tenant, i));
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  // The events and the admin.key.create event of the key above.
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) === EVENTS + 1);
});

/**
 * A POST whose body is sent in two parts, over a keep-alive connection as clients keep them. Between the parts
 * the request has reached the service and cannot have finished: it is in flight, whatever the timing.
 */
function postInTwoParts(url: string, headers: Record<string, string>, body: string) {
  const bytes = Buffer.from(body);
  const request = http.request(url, {
    method: 'POST',
    agent: new http.Agent({ keepAlive: true }),
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bytes.length) },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
    });
  });
  const half = Math.floor(bytes.length / 2);
  request.write(bytes.subarray(0, half));
  return { answer, finish: () => request.end(bytes.subarray(half)) };
}

/** The service logged the request's arrival (its headers; the body may still be on its way). */
const arrived = (service: ServiceProcess, path: string) =>
  service.waitForLog('incoming request', (line) =>
    String((line.req as { url?: string } | undefined)?.url).startsWith(path),
  );

describe('SIGTERM with work in flight', () => {
  // First: the gateway it uses to register the endpoint is stopped by the next test.
  it('dispatcher: a delivery in flight completes and is committed, then the process exits 0', async () => {
    const tenant = `${names.tenant}-webhook`;
    const key = await gw.mint(tenant, 'webhooks:write');
    const endpoint = { url: receiver.url('/held'), event_filter: ['phi.'] };
    expect((await gw.send('POST', '/audit/webhooks', key, endpoint)).status).toBe(201);
    const event = makeEvent(tenant, 0);
    expect(event.action).toBe('phi.read');
    expect((await ingest(ingestProc.url, names.ingestToken, [event])).status).toBe(202);
    await waitFor('the delivery at the receiver', async () =>
      receiver.at('/held').some((r) => r.id === event.event_id),
    );

    const service = dispatcher.process();
    const exited = service.stop('SIGTERM');
    await service.waitForLog('shutting down');
    answer(200);
    expect(await exited).toBe(0);
    // Its offset was committed on the way out: a restarted dispatcher does not deliver it again.
    expect(await groupCaughtUp(kafka, `dispatcher-${names.id}`, topics.auditEvents.name)).toBe(true);
    const attempts = await dispatcher
      .db()
      .query('SELECT succeeded, status_code FROM webhook_delivery_attempts WHERE event_id = $1', [
        event.event_id,
      ]);
    expect(attempts.rows).toEqual([{ succeeded: true, status_code: 200 }]);
  });

  it('gateway: the export finishes whole with 200, then the process exits 0', async () => {
    const path = '/api/v2/public/audit/export';
    // Read before: the export's own audit.export event joins the tenant's trail while it runs.
    const stored = (await storedEvents(ch, names.tenant)).map((e) => e.event_id);
    const call = postInTwoParts(
      `${gw.url()}${path}?format=ndjson`,
      { authorization: `Bearer ${exporter}` },
      // Every event of the tenant: they are all later than this.
      JSON.stringify({ since: '2000-01-01T00:00:00Z' }),
    );
    await arrived(gw.process(), path);
    const exited = gw.process().stop('SIGTERM');
    await gw.process().waitForLog('shutting down');
    call.finish();
    const { status, text } = await call.answer;
    expect(status).toBe(200);
    const exported = text
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event_id: string }).event_id);
    expect(exported.sort()).toEqual(stored.sort());
    expect(await exited).toBe(0);
  });

  describe('ingest', () => {
    const service = ingestService(names);
    beforeAll(() => service.start());
    afterAll(() => service.stop());

    it('the batch is acknowledged with 202 and stored, then the process exits 0', async () => {
      const tenant = `${names.tenant}-ingest`;
      const path = '/internal/v1/events';
      const events = Array.from({ length: 3 }, (_, i) => makeEvent(tenant, i));
      const call = postInTwoParts(
        `${service.url}${path}`,
        { authorization: `Bearer ${names.ingestToken}` },
        JSON.stringify(events),
      );
      await arrived(service, path);
      const exited = service.stop('SIGTERM');
      await service.waitForLog('shutting down');
      call.finish();
      const { status, text } = await call.answer;
      expect(status).toBe(202);
      expect(JSON.parse(text)).toMatchObject({ accepted: 3 });
      expect(await exited).toBe(0);
      await waitFor('the batch stored', async () => (await countRows(ch, tenant)) === 3);
    });
  });
});
