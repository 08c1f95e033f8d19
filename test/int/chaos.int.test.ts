import { describe, expect, it } from 'vitest';
import { sleep } from '@audit/shared';
import { ingest, makeEvent } from '../support/events.js';
import { groupCaughtUp } from '../support/kafka-offsets.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const TOTAL = 50_000;
const BATCH = 500;
const MIN_KILLS = 5;

// Small batches and the shortest session timeout: more commits to interrupt, faster rejoin after each kill.
const {
  names,
  ingest: ingestProc,
  projector: projectorProc,
  ch,
  kafka,
  topics,
} = pipelineFixture('chaos', { PROJECTOR_SESSION_TIMEOUT_MS: '6000', PROJECTOR_BATCH_SIZE: '2000' });
const auditTopic = topics.auditEvents.name;

describe('projector killed with SIGKILL while events flow', () => {
  it('ends with exactly the acknowledged set, no duplicate visible', async () => {
    const acknowledged = new Set<string>();
    let sending = true;

    const send = (async () => {
      for (let i = 0; i < TOTAL; i += BATCH) {
        const batch = Array.from({ length: BATCH }, (_, j) => makeEvent(names.tenant, i + j));
        const res = await ingest(ingestProc.url, names.ingestToken, batch);
        expect(res.status).toBe(202);
        batch.forEach((e) => acknowledged.add(e.event_id));
        await sleep(150);
      }
      sending = false;
    })();

    let kills = 0;
    while (sending || kills < MIN_KILLS) {
      await sleep(300 + Math.random() * 1500);
      await projectorProc.stop('SIGKILL');
      kills++;
      await projectorProc.start();
    }
    await send;

    await waitFor('projector caught up', () => groupCaughtUp(kafka, names.groupId, auditTopic), {
      timeoutMs: 240_000,
    });
    await waitFor('all rows', async () => (await countRows(ch, names.tenant)) >= TOTAL);
    const stored = await storedEvents(ch, names.tenant);
    const storedIds = stored.map((e) => e.event_id);
    expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);
    expect(new Set(storedIds).size).toBe(storedIds.length);
    expect(storedIds.length).toBe(TOTAL);
    expect(new Set(storedIds)).toEqual(acknowledged);
    await expectFilterIndexExact(ch, names.tenant);
  });
});
