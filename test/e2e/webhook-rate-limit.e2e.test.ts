import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { dispatcherService, LOOPBACK_TARGETS } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { receiverProcess } from '../support/receiver-process.js';

const LIMIT = 5;
const EVENTS = 30;
const { names, ingest: ingestProc } = pipelineFixture('whrate');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
dispatcherFixture(names, gw, {});
// A second dispatcher process of its own consumer groups: it delivers every event too, so that two processes
// deliver to the one endpoint at once and only the shared slots can keep them within its limit together.
let second: ReturnType<typeof dispatcherService> | undefined;
beforeAll(async () => {
  second = dispatcherService(names, gw.databaseUrl(), {
    ...LOOPBACK_TARGETS,
    DISPATCHER_GROUP_ID: `dispatcher-${names.id}-second`,
  });
  await second.start();
});
afterAll(() => second?.stop());
// In a process of its own: the arrival times are not held up by this test process's event loop.
const receiver = await receiverProcess();
afterAll(() => receiver.stop());

describe('a rate-limited endpoint', () => {
  it('never receives more than its limit in any one-second window, from two dispatcher processes', async () => {
    const tenant = `${names.tenant}-rate`;
    const key = await gw.mint(tenant, 'audit:read,webhooks:write');
    const created = await gw.send('POST', '/audit/webhooks', key, {
      url: receiver.url('/limited'),
      event_filter: ['phi.'],
      rate_limit_per_second: LIMIT,
    });
    expect(created.status, created.text).toBe(201);
    await receiver.reset(true);
    expect(JSON.parse(created.text).endpoint.rate_limit_per_second).toBe(LIMIT);
    const events = Array.from({ length: EVENTS }, (_, i) => ({
      ...makeEvent(tenant, i),
      action: 'phi.read',
    }));
    expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
    // Each event from each process: twice as many requests as events.
    const got = await waitFor(
      'every delivery from both processes',
      async () => {
        const arrivals = await receiver.arrivals();
        return arrivals.length >= 2 * EVENTS ? arrivals : undefined;
      },
      { timeoutMs: 180_000 },
    );
    for (const event of events) {
      expect(got.filter(([id]) => id === event.event_id).length, event.event_id).toBe(2);
    }
    // Any one-second window, starting at any arrival: at most the limit.
    const times = got.map(([, at]) => at).sort((a, b) => a - b);
    const busiest = Math.max(...times.map((t, i) => times.slice(i).filter((u) => u < t + 1000).length));
    // The closest that LIMIT + 1 arrivals came: more than a second apart, or the limit was exceeded.
    const closest = Math.min(...times.slice(LIMIT).map((t, i) => t - times[i]!));
    expect(busiest, `${LIMIT + 1} arrivals within ${closest} ms`).toBeLessThanOrEqual(LIMIT);
  });
});
