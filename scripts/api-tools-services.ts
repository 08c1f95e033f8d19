import { SCOPES } from '@audit/shared/api-keys';
import { writeFileSync } from 'node:fs';
import { runCli } from '../services/ops/src/cli.js';
import { ingest, makeEvent } from '../test/support/events.js';
import { uniqueNames } from '../test/support/names.js';
import { migratedPostgres } from '../test/support/postgres.js';
import {
  cleanUp,
  gatewayService,
  ingestService,
  LOOPBACK_TARGETS,
  projectorService,
  testClickHouse,
} from '../test/support/stack.js';
import { countRows } from '../test/support/stored-events.js';

/**
 * For scripts/test-api-tools.sh: ingest, projector and gateway as processes on names of their own, and two tenants,
 * each with events, webhook endpoints and a key with every scope (the second is the peer that must never see the
 * first one's data). Writes `{ url, key, peerKey }` to the file named by its argument once all is ready, and
 * removes everything on SIGTERM or SIGINT.
 */
const [out] = process.argv.slice(2);
if (!out) throw new Error('usage: api-tools-services.ts <ready-file>');

const names = uniqueNames('apitools');
const postgres = await migratedPostgres(names);
const pepper = 'api-tools-pepper-0123456789abcdef01234567';
const ingestProc = ingestService(names);
const projector = projectorService(names);
const gateway = gatewayService(names, {
  ...LOOPBACK_TARGETS,
  DATABASE_URL: postgres.url,
  API_KEY_PEPPER: pepper,
  CURSOR_SECRET: 'api-tools-cursor-0123456789abcdef01234567',
  // A fuzzer's volume must meet the API's answers, not its budgets: every request would otherwise soon be a 429,
  // and its requests without a key would throttle its own address.
  RATE_LIMIT_READ_PER_MIN: '1000000',
  RATE_LIMIT_WRITE_PER_MIN: '1000000',
  AUTH_FAILURE_BURST: '1000000',
  AUTH_FAILURES_PER_MIN: '1000000',
});
const ch = testClickHouse(names);

async function stop() {
  await Promise.all([gateway.stop(), projector.stop(), ingestProc.stop()]);
  await ch.close();
  await cleanUp(names);
  await postgres.drop();
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void stop().then(() => process.exit(0));
  });
}

const opsEnv = {
  DATABASE_URL: postgres.url,
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:15092',
  TOPIC_PREFIX: names.topicPrefix,
  API_KEY_PEPPER: pepper,
  LOG_LEVEL: 'error',
};

async function mint(tenant: string): Promise<string> {
  let minted = '';
  const argv = ['keys', 'create', '--tenant', tenant, '--scopes', SCOPES.join(',')];
  const code = await runCli([...argv, '--json'], opsEnv, {
    out: (t) => (minted += t),
    err: (t) => process.stderr.write(t),
  });
  if (code !== 0) throw new Error(`keys create exited with ${code}`);
  return (JSON.parse(minted) as { key: string }).key;
}

/** A tenant with 20 events, 5 webhook endpoints and a key with every scope. */
async function tenantWithData(tenant: string): Promise<string> {
  const key = await mint(tenant);
  // Inside the window of the document's `since` and `until` examples, half of them matching its other examples,
  // so that requests built from the examples find events, and links from their answers lead somewhere.
  const events = Array.from({ length: 20 }, (_, i) => ({
    ...makeEvent(tenant, i, Date.parse('2026-06-01T00:00:00Z')),
    ...(i % 2 ? { resource_type: 'patient', source_ip: '203.0.113.7' } : {}),
  }));
  const ingested = await ingest(ingestProc.url, names.ingestToken, events);
  if (ingested.status !== 202) throw new Error(`ingest answered ${ingested.status}`);
  // The key's own admin.key.create event is in the same trail.
  const deadline = Date.now() + 120_000;
  while ((await countRows(ch, tenant)) < events.length + 1) {
    if (Date.now() > deadline) throw new Error('the events did not become readable within 2 minutes');
    await new Promise((r) => setTimeout(r, 250));
  }
  // Endpoints to list, disable and delete: creating one needs a resolvable host, which generated URLs never are.
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${gateway.url}/api/v2/public/audit/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:9999/hooks/${i}`, event_filter: ['phi.'] }),
    });
    if (res.status !== 201) throw new Error(`creating a webhook endpoint answered ${res.status}`);
  }
  return key;
}

try {
  await ingestProc.start();
  await projector.start();
  await gateway.start();
  const [key, peerKey] = await Promise.all([
    tenantWithData(names.tenant),
    tenantWithData(`${names.tenant}-peer`),
  ]);
  writeFileSync(out, JSON.stringify({ url: gateway.url, key, peerKey }));
} catch (err) {
  console.error(err);
  stopping = true;
  await stop();
  process.exit(1);
}
