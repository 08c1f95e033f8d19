import { describe, expect, it } from 'vitest';
import { encodeLeaf, leafEventOf, leafHashOf } from '@audit-trail/integrity-verifier';
import {
  leafSaltsText,
  toAuditEventView,
  validateBatch,
  type AuditEventRecord,
} from '@audit/shared/contract';
import { sampleRecord } from '@audit/shared/test-support';
import { leafEventOfRecord, recordLeafHash } from './record-leaf.js';

/** The record as the API returns it once stored. */
const viewOf = (e: AuditEventRecord) =>
  toAuditEventView({
    ...e,
    ts: String(e.timestamp),
    phi_involved: Number(e.phi_involved),
    success: Number(e.success),
    disclosure: Number(e.disclosure),
  });

const ingested = (() => {
  const batch = validateBatch(
    [
      {
        tenant_id: 't1',
        action: 'phi.read',
        user_id: 'u-ü',
        resource_type: 'claim',
        resource_id: 'c-1',
        phi_involved: true,
        success: true,
        patient_id: 'p-1',
      },
    ],
    { clock: () => Date.UTC(2026, 11, 1) },
  );
  if (!batch.ok) throw new Error('refused');
  return batch.records[0]!;
})();

describe('recordLeafHash', () => {
  it("gives an ingested event a version 3 leaf, the one a verifier finds from the API's row", () => {
    expect(encodeLeaf(leafEventOfRecord(ingested))[0]).toBe(3);
    // The record keeps the salts' seed; the API gives the salts, which a verifier needs.
    const view = viewOf(ingested);
    expect(view.leaf_salts).toBe(leafSaltsText(ingested.leaf_salts));
    expect(Buffer.from(view.leaf_salts!, 'base64')).toHaveLength(128);
    expect(Buffer.from(recordLeafHash(ingested))).toEqual(Buffer.from(leafHashOf(leafEventOf({ ...view }))));
  });

  it('commits to the salts: another seed, another leaf; salts stored whole, the leaf of those salts', () => {
    const other = { ...ingested, leaf_salts: Buffer.alloc(16, 1).toString('base64') };
    expect(Buffer.from(recordLeafHash(other))).not.toEqual(Buffer.from(recordLeafHash(ingested)));
    const whole = { ...ingested, leaf_salts: leafSaltsText(ingested.leaf_salts) };
    expect(Buffer.from(recordLeafHash(whole))).toEqual(Buffer.from(recordLeafHash(ingested)));
  });

  it('keeps the leaf of an event without salts, of version 1 or 2, as before', () => {
    for (const record of [sampleRecord(), sampleRecord({ patient_id: 'p-2' })]) {
      expect(leafEventOfRecord(record)).toBe(record);
      expect(viewOf(record)).not.toHaveProperty('leaf_salts');
      expect(Buffer.from(recordLeafHash(record))).toEqual(Buffer.from(leafHashOf(record)));
      expect(Buffer.from(recordLeafHash(record))).toEqual(
        Buffer.from(leafHashOf(leafEventOf({ ...viewOf(record) }))),
      );
    }
  });
});
