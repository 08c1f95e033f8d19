import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cluster, INGEST, INGEST_TOKEN, mintKey } from '../support/cluster-shape.js';
import { ingest, makeEvent } from '../support/events.js';
import { uniqueNames } from '../support/names.js';
import { pageThrough } from '../support/paging.js';
import { waitFor } from '../support/wait-for.js';

const tenant = uniqueNames('balanced').tenant;
let key = '';

const list = (path: string) => api(key, 'GET', path);

beforeAll(async () => {
  // Started by the tier (scripts/test-cluster.sh); `up` again is quick and starts whatever is missing.
  await cluster('up');
  key = await mintKey(tenant, 'audit:read');
});
afterAll(async () => {
  // Whatever a test killed is running again for the tests after it.
  await cluster('up');
});

describe('two of each service behind HAProxy', () => {
  it('answers every request while a gateway, an ingest and a projector are killed, and shows each event once', async () => {
    const accepted = new Set<string>();
    const answers: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        answers.push((await list('/audit/events?limit=10')).status);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const kills = [
      [5, 'gateway-1'],
      [15, 'ingest-1'],
      [25, 'projector-1'],
    ] as const;
    for (let batch = 0; batch < 40; batch++) {
      const killed = kills.find(([at]) => at === batch);
      if (killed) await cluster('kill', killed[1]);
      const events = Array.from({ length: 50 }, (_, i) => makeEvent(tenant, batch * 50 + i));
      const res = await ingest(INGEST, INGEST_TOKEN, events);
      answers.push(res.status === 202 ? 200 : res.status);
      if (res.status === 202) for (const e of events) accepted.add(e.event_id);
    }
    reading = false;
    await reader;
    // Every request was answered, by whichever process was alive: HAProxy sent the ones a dead one refused again.
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    expect(accepted.size).toBe(2000);

    // The projector left alive took the dead one's partitions: every accepted event is listed, once.
    const listed = await waitFor('every accepted event listed', async () => {
      const events = await pageThrough(list, 'limit=500', key);
      const ids = events.filter((e) => accepted.has(e.event_id)).map((e) => e.event_id);
      return ids.length >= accepted.size && ids;
    });
    expect(listed.length).toBe(accepted.size);
    expect(new Set(listed).size).toBe(accepted.size);
  });
});
