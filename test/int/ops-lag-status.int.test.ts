import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics } from '@audit/shared/contract';
import { DurableProducer } from '@audit/shared/platform';
import { uniqueNames } from '../support/names.js';
import { freshPostgres } from '../support/postgres.js';
import { opsCli } from '../support/ops-cli.js';
import { cleanUp, testKafka } from '../support/stack.js';

const names = uniqueNames('opslag');
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;
const kafka = testKafka();
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
const servers: Server[] = [];

const run = opsCli(names, () => postgres.url);
const ops = (overrides: Record<string, string>, ...argv: string[]) => run([...argv, '--json'], overrides);

/** A stand-in service answering /readyz as told. */
async function readiness(status: number, checks: Record<string, string>) {
  const server = createServer((_req, res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ checks })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: a server opened and closed again. */
async function closedPort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  postgres = await freshPostgres(names);
});
afterAll(async () => {
  for (const s of servers) s.close();
  await postgres.drop();
  await cleanUp(names, [names.groupId]);
});

describe('ops lag', () => {
  it("reports a group's committed offset, end, lag and the age of its oldest unprocessed record", async () => {
    expect((await ops({}, 'migrate')).code).toBe(0);
    const writtenAt = Date.now() - 90_000;
    const producer = new DurableProducer(kafka);
    await producer.connect();
    await producer.send({
      topic: auditTopic,
      messages: Array.from({ length: 5 }, (_, i) => ({
        partition: 0,
        value: `r${i}`,
        timestamp: String(writtenAt + i * 1000),
      })),
    });
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({
      groupId: names.groupId,
      topic: auditTopic,
      partitions: [{ partition: 0, offset: '2' }],
    });
    await admin.disconnect();

    const res = await ops({}, 'lag');
    expect(res.code, res.err).toBe(0);
    const rows = (res.json().partitions as Record<string, unknown>[]).filter(
      (r) => r.group === names.groupId,
    );
    expect(rows.map((r) => r.partition)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rows[0]).toMatchObject({ topic: auditTopic, committed: '2', end: '5', lag: 3, oldest: '2' });
    // The record at offset 2 was stamped 88 s ago (its own timestamp, set above).
    expect(rows[0]!.oldest_age_ms).toBeGreaterThanOrEqual(88_000);
    expect(rows[1]).toMatchObject({ committed: null, end: '0', lag: 0, oldest_age_ms: null });
  });
});

describe('ops status', () => {
  it('names every component and service with its address and state, and fails when one is not up', async () => {
    const down = await closedPort();
    const res = await ops(
      {
        GATEWAY_PORT: String(await readiness(200, { postgres: 'ok' })),
        INGEST_PORT: String(await readiness(503, { kafka: 'failed', postgres: 'ok' })),
        PROJECTOR_PORT: String(down),
        DISPATCHER_PORT: String(await readiness(200, {})),
        EXPORTER_PORT: String(await readiness(200, { clickhouse: 'ok' })),
        NOTARY_PORT: String(await readiness(200, { postgres: 'ok' })),
        CUSTODIAN_PORT: String(await readiness(200, { clickhouse: 'ok' })),
      },
      'status',
    );
    expect(res.code).toBe(1);
    const { components, services } = res.json() as Record<string, Record<string, unknown>[]>;
    expect(components!.map((c) => [c.name, c.state])).toEqual([
      ['postgres', 'up'],
      ['clickhouse', 'up'],
      ['kafka', 'up'],
    ]);
    expect(services!.map((s) => [s.name, s.state, s.detail])).toEqual([
      ['gateway', 'up', null],
      ['ingest', 'not_ready', 'kafka failed'],
      ['projector', 'down', 'ECONNREFUSED'],
      ['dispatcher', 'up', null],
      ['exporter', 'up', null],
      ['notary', 'up', null],
      ['custodian', 'up', null],
    ]);
    expect(services![2]!.address).toBe(`127.0.0.1:${down}`);
  });

  it('reports a component that does not answer as down', async () => {
    const res = await ops(
      { DATABASE_URL: `postgres://audit:audit@127.0.0.1:${await closedPort()}/audit` },
      'status',
    );
    expect(res.code).toBe(1);
    const { components } = res.json() as Record<string, Record<string, unknown>[]>;
    expect(components![0]).toMatchObject({ name: 'postgres', state: 'down', detail: 'ECONNREFUSED' });
  });
});
