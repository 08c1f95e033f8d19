import { describe, expect, it } from 'vitest';
import { auditEventCodec, type AuditEventRecord } from '@audit/shared/contract';
import { sampleRecord } from '@audit/shared/test-support';
import { projectBatch } from './project-batch.js';
import { consumedRecords } from '../test-support/consumed-records.js';

const codec = auditEventCodec();
const consumed = consumedRecords(Buffer.from('tenant-a'));
const encoded = (r: AuditEventRecord) => consumed(codec.encode(r));

describe('projectBatch', () => {
  it('keeps valid events in order and drops repeated (tenant, event_id) pairs', () => {
    const a = sampleRecord();
    const b = sampleRecord();
    const sameIdOtherTenant = { ...a, tenant_id: 'tenant-b' };
    const result = projectBatch(
      [encoded(a), encoded(b), encoded({ ...a, action: 'phi.query' }), encoded(sameIdOtherTenant)],
      codec,
    );
    expect(result.events).toEqual([a, b, sameIdOtherTenant]);
    expect(result.deadLetters).toEqual([]);
  });

  it('dead-letters undecodable and invalid records with their stage and reason', () => {
    const good = sampleRecord();
    const garbage = consumed(Buffer.from('not avro'));
    const empty = consumed(null);
    const invalid = encoded(sampleRecord({ tenant_id: 'bad tenant!', details: '[1]' }));
    const result = projectBatch([garbage, encoded(good), empty, invalid], codec);
    expect(result.events).toEqual([good]);
    expect(result.deadLetters.map((d) => [d.record.offset, d.stage])).toEqual([
      [garbage.offset, 'decode'],
      [empty.offset, 'decode'],
      [invalid.offset, 'validate'],
    ]);
    expect(result.deadLetters[2]!.error).toMatch(/tenant_id/);
    expect(result.deadLetters[2]!.error).toMatch(/details/);
  });
});
