import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { auditEventCodec, type AuditEventRecord } from '@audit/shared/contract';
import { projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { consumedRecords } from '../test-support/consumed-records.js';
import { GroupMembership } from './group-membership.js';
import type { RetentionFilter } from '@audit/shared/retention';
import { retryingFlush } from './retrying-flush.js';

const codec = auditEventCodec();

/** A flush over a sink that records, per lookup, whether it was asked to repair; the first insert can fail. */
function setup(failFirstInsert = false, retention: RetentionFilter = async (events) => [...events]) {
  const repairs: boolean[] = [];
  const inserted: string[] = [];
  let failing = failFirstInsert;
  const sink = {
    on: () => ({
      storedKeys: async (_events: unknown, repair = false) => {
        repairs.push(repair);
        return new Set<string>();
      },
      insert: async (events: readonly AuditEventRecord[]) => {
        if (failing) {
          failing = false;
          throw new Error('socket hang up');
        }
        inserted.push(...events.map((e) => e.event_id));
      },
    }),
    insertsSettled: async () => undefined,
  };
  const group = new GroupMembership(sink);
  const flush = retryingFlush(
    {
      codec,
      retention,
      sink,
      deadLetters: { publish: async () => undefined },
      settledSinceJoin: () => group.settledSinceJoin(),
      firstSinceJoin: (partitions) => group.firstSinceJoin(partitions),
      shouldStop: () => false,
      meter: { flushed: () => undefined },
      target: (write) => write(projectionTables(1)),
    },
    pino({ level: 'silent' }),
  );
  return { flush, group, repairs, inserted };
}

describe('retryingFlush', () => {
  it("repairs on a partition's first write after each join, and on every retry, not otherwise", async () => {
    const { flush, group, repairs } = setup(true);
    const consumed = consumedRecords();
    const batch = () => [consumed(codec.encode(sampleRecord()))];
    group.joined();
    await flush(batch());
    await flush(batch());
    group.joined();
    await flush(batch());
    // First write: its first attempt repairs (first since the join), and its retry after the failed insert too.
    expect(repairs).toEqual([true, true, false, true]);
  });

  it('leaves the next write the first after a join when a write carried dead letters alone', async () => {
    const { flush, group, repairs } = setup();
    const consumed = consumedRecords();
    group.joined();
    await flush([consumed(Buffer.from('not avro'))]);
    await flush([consumed(codec.encode(sampleRecord()))]);
    expect(repairs).toEqual([true]);
  });

  it('stores only what the retention filter keeps, and tries again when it cannot tell', async () => {
    let calls = 0;
    const { flush, inserted } = setup(false, async (events) => {
      calls += 1;
      if (calls === 1) throw new Error('Postgres unreachable');
      return events.filter((e) => e.user_id !== 'purged');
    });
    const consumed = consumedRecords();
    const kept = sampleRecord();
    const purged = sampleRecord({ user_id: 'purged' });
    await flush([consumed(codec.encode(kept)), consumed(codec.encode(purged))]);
    expect(calls).toBe(2);
    expect(inserted).toEqual([kept.event_id]);
  });
});
