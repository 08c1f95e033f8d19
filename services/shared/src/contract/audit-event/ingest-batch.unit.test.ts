import { describe, expect, it } from 'vitest';
import { validateBatch } from './ingest-batch.js';
import { LEAF_SEED_BYTES } from './leaf-salts.js';
import { auditEventRecordSchema } from './record.schema.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const ctx = { clock: () => NOW, newId: () => '00000000-0000-4000-8000-000000000001' };

const minimal = {
  tenant_id: 't1',
  action: 'phi.read',
  user_id: 'u1',
  resource_type: 'claim',
  phi_involved: true,
  success: true,
};

describe('validateBatch', () => {
  it('fills defaults and renders JSON fields as text', () => {
    const result = validateBatch([minimal], ctx);
    expect(result).toEqual({
      ok: true,
      records: [
        {
          event_id: '00000000-0000-4000-8000-000000000001',
          timestamp: NOW,
          tenant_id: 't1',
          action: 'phi.read',
          user_id: 'u1',
          user_role: '',
          resource_type: 'claim',
          resource_id: '',
          fields_accessed: '[]',
          phi_involved: true,
          source_ip: '',
          user_agent: '',
          justification: '',
          success: true,
          details: '{}',
          ingested_at: NOW,
          patient_id: '',
          purpose_of_use: '',
          recipient: '',
          disclosure: false,
          accounting_exclusion: '',
          leaf_salts: expect.stringMatching(/^[A-Za-z0-9+/]{21}[AQgw]==$/),
        },
      ],
    });
  });

  it('gives every event a seed of its own for its salts, which the record schema takes', () => {
    const result = validateBatch(
      Array.from({ length: 50 }, () => minimal),
      { clock: () => NOW },
    );
    if (!result.ok) throw new Error('refused');
    const salts = result.records.map((r) => r.leaf_salts);
    expect(new Set(salts).size).toBe(50);
    for (const record of result.records) {
      expect(Buffer.from(record.leaf_salts, 'base64')).toHaveLength(LEAF_SEED_BYTES);
      expect(auditEventRecordSchema.safeParse(record).success).toBe(true);
    }
  });

  it('keeps a given id (lowercased), truncates time to milliseconds, and keeps JSON fields', () => {
    const result = validateBatch(
      [
        {
          ...minimal,
          event_id: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
          timestamp: '2026-11-21T13:00:00.123999+01:00',
          fields_accessed: ['dob'],
          details: { nested: { a: [1, 2] } },
          source_ip: '2001:DB8:0::1',
        },
        { ...minimal, source_ip: '::ffff:10.0.0.1' },
      ],
      ctx,
    );
    expect(result.ok && result.records[0]).toMatchObject({
      event_id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      timestamp: Date.UTC(2026, 10, 21, 12, 0, 0, 123),
      fields_accessed: '["dob"]',
      details: '{"nested":{"a":[1,2]}}',
      source_ip: '2001:db8::1',
    });
    // Stored in one canonical text, so a filter finds every spelling (an IPv4-mapped address as its IPv4).
    expect(result.ok && result.records[1]?.source_ip).toBe('10.0.0.1');
  });

  it.each([
    [{ ...minimal, tenant_id: 'bad tenant' }, 'tenant_id'],
    [{ ...minimal, tenant_id: 'x'.repeat(65) }, 'tenant_id'],
    [{ ...minimal, action: 'PHI.Read' }, 'action'],
    [{ ...minimal, action: 'phi' }, 'action'],
    [{ ...minimal, action: `phi.${'a'.repeat(100)}` }, 'action'],
    [{ ...minimal, event_id: 'not-a-uuid' }, 'event_id'],
    [{ ...minimal, timestamp: '2026-11-21 12:00:00' }, 'timestamp'],
    [{ ...minimal, timestamp: '2026-11-21T12:05:00.001Z' }, 'timestamp'],
    [{ ...minimal, user_id: '' }, 'user_id'],
    [{ ...minimal, user_agent: 'a'.repeat(1025) }, 'user_agent'],
    [{ ...minimal, justification: 'a'.repeat(2049) }, 'justification'],
    [{ ...minimal, resource_id: 'a'.repeat(257) }, 'resource_id'],
    [{ ...minimal, source_ip: '999.1.1.1' }, 'source_ip'],
    [{ ...minimal, details: [] }, 'details'],
    [{ ...minimal, details: 'text' }, 'details'],
    [{ ...minimal, details: { big: 'x'.repeat(64 * 1024) } }, 'details'],
    [{ ...minimal, fields_accessed: '["dob"]' }, 'fields_accessed'],
    [{ ...minimal, phi_involved: false, fields_accessed: ['dob'] }, 'fields_accessed'],
    [{ ...minimal, phi_involved: 'true' }, 'phi_involved'],
    [{ ...minimal, success: undefined }, 'success'],
    [{ ...minimal, user_role: 'x\uD800' }, 'user_role'],
    [{ ...minimal, extra: 1 }, 'extra'],
    [42, '(event)'],
  ])('rejects %j naming %s', (event, field) => {
    const result = validateBatch([minimal, event], ctx);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toContainEqual(expect.objectContaining({ index: 1, field }));
  });

  it('says the whole rule of a timestamp it refuses, the years it allows included', () => {
    const result = validateBatch([{ ...minimal, timestamp: '1969-12-31T23:59:59Z' }], ctx);
    expect(result).toEqual({
      ok: false,
      errors: [
        { index: 0, field: 'timestamp', message: expect.stringContaining('from 1970-01-01T00:00:00Z') },
      ],
    });
  });

  it('accepts a timestamp exactly 5 minutes ahead', () => {
    expect(validateBatch([{ ...minimal, timestamp: '2026-11-21T12:05:00Z' }], ctx).ok).toBe(true);
  });

  it('lists every bad index and rejects the batch as a whole', () => {
    const result = validateBatch(
      [{ ...minimal, action: 'x' }, minimal, null, { ...minimal, tenant_id: '' }],
      ctx,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect([...new Set(result.errors.map((e) => e.index))]).toEqual([0, 2, 3]);
  });

  it('keeps a disclosure: the patient, an HL7 purpose, the recipient and a named exclusion', () => {
    const result = validateBatch(
      [
        {
          ...minimal,
          patient_id: 'p-1042',
          purpose_of_use: 'HPAYMT',
          recipient: 'Acme Billing, 1 Main St',
          disclosure: true,
          accounting_exclusion: 'authorized',
        },
      ],
      ctx,
    );
    expect(result.ok && result.records[0]).toMatchObject({
      patient_id: 'p-1042',
      purpose_of_use: 'HPAYMT',
      recipient: 'Acme Billing, 1 Main St',
      disclosure: true,
      accounting_exclusion: 'authorized',
    });
  });

  it('refuses an unknown purpose or exclusion, and disclosure fields on what is no disclosure of PHI', () => {
    const refused = (event: object) => {
      const result = validateBatch([{ ...minimal, ...event }], ctx);
      return result.ok ? [] : result.errors.map((e) => `${e.field}: ${e.message}`);
    };
    expect(refused({ purpose_of_use: 'treat' })).toEqual([
      'purpose_of_use: must be an HL7 v3 PurposeOfUse code (docs/ingest.md)',
    ]);
    expect(refused({ disclosure: true, patient_id: 'p-1', accounting_exclusion: 'tpo' })[0]).toMatch(
      /^accounting_exclusion: must be one of/,
    );
    expect(refused({ recipient: 'Acme' })).toEqual(['recipient: must be empty when disclosure is false']);
    expect(refused({ accounting_exclusion: 'authorized' })).toEqual([
      'accounting_exclusion: must be empty when disclosure is false',
    ]);
    expect(refused({ phi_involved: false, disclosure: true, patient_id: 'p-1' })).toEqual([
      'disclosure: must be false when phi_involved is false',
    ]);
    expect(refused({ disclosure: true, recipient: 'Acme' })).toEqual([
      'patient_id: must name the patient of a disclosure',
    ]);
    expect(refused({ patient_id: 'p-\u0000' })).toEqual(['patient_id: must not contain control characters']);
    expect(refused({ patient_id: 'x'.repeat(257), disclosure: 'yes' }).map((e) => e.split(':')[0])).toEqual([
      'patient_id',
      'disclosure',
    ]);
  });
});
