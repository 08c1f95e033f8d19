import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { auditEventCodec, type AuditEventRecord } from '@audit/shared/contract';
import { Registry } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { idKey } from '../domain/project-batch.js';
import { projectorMetrics } from './projector.metrics.js';
import { retryingFlush } from './retrying-flush.js';
import { consumedRecords } from '../test-support/consumed-records.js';

const codec = auditEventCodec();
const consumed = consumedRecords();

function setup(alreadyStored: readonly AuditEventRecord[]) {
  const registry = new Registry();
  const flush = retryingFlush(
    {
      codec,
      retention: async (events) => [...events],
      sink: {
        on: () => ({
          storedKeys: async () => new Set(alreadyStored.map(idKey)),
          insert: async () => undefined,
        }),
        insertsSettled: async () => undefined,
      },
      deadLetters: { publish: async () => undefined },
      settledSinceJoin: async () => undefined,
      firstSinceJoin: () => ({ first: false, written: () => undefined }),
      shouldStop: () => false,
      meter: projectorMetrics(registry),
      target: (write) => write(projectionTables(1)),
    },
    pino({ level: 'silent' }),
  );
  return { flush, text: () => registry.metrics() };
}

describe('projector metrics', () => {
  it('count every record of a write by what became of it', async () => {
    const [fresh, stored] = [sampleRecord(), sampleRecord()];
    const { flush, text } = setup([stored]);
    await flush([
      consumed(codec.encode(fresh)),
      consumed(codec.encode(fresh)),
      consumed(codec.encode(stored)),
      consumed(Buffer.from('not avro')),
      consumed(codec.encode(sampleRecord({ tenant_id: 'bad tenant!' }))),
    ]);
    const body = await text();
    expect(body).toContain('projector_batch_size_count 1');
    expect(body).toContain('projector_batch_size_sum 5');
    expect(body).toContain('projector_insert_duration_seconds_count 1');
    expect(body).toContain('projector_events_total{outcome="inserted"} 1');
    expect(body).toContain('projector_events_total{outcome="duplicate"} 1');
    expect(body).toContain('projector_events_total{outcome="already_stored"} 1');
    expect(body).toContain('projector_events_total{outcome="dead_lettered"} 2');
    expect(body).toContain('projector_dead_letters_total{stage="decode"} 1');
    expect(body).toContain('projector_dead_letters_total{stage="validate"} 1');
  });

  it('times no insert when a write had nothing new', async () => {
    const stored = sampleRecord();
    const { flush, text } = setup([stored]);
    await flush([consumed(codec.encode(stored))]);
    expect(await text()).toContain('projector_insert_duration_seconds_count 0');
  });
});
