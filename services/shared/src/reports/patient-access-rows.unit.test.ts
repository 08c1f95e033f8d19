import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCOUNTING_EXCLUSIONS, PURPOSE_OF_USE } from '@audit/shared/contract';
import { COMPLIANCE_DATE_MS, type PatientAccessRow } from './patient-access-report.js';
import {
  accountingOf,
  pageAfter,
  PURPOSE_EXCLUSIONS,
  SORT_COLUMNS,
  sortRows,
} from './patient-access-rows.js';

const AFTER = Date.UTC(2024, 0, 1);
const disclosure = (overrides: Partial<Parameters<typeof accountingOf>[0]> = {}) =>
  accountingOf({
    disclosure: true,
    success: true,
    accounting_exclusion: '',
    purpose_of_use: 'PUBHLTH',
    timestampMs: AFTER,
    ...overrides,
  });

describe('accountingOf (HIPAA 164.528(a)(1))', () => {
  it('lists a use, but never accounts for it', () => {
    expect(disclosure({ disclosure: false, purpose_of_use: 'HRESCH' })).toEqual({
      status: 'use',
      exclusion: null,
    });
  });

  it('excludes a disclosure by the paragraph its producer named, whatever its purpose', () => {
    for (const exclusion of ACCOUNTING_EXCLUSIONS) {
      expect(disclosure({ accounting_exclusion: exclusion })).toEqual({ status: 'excluded', exclusion });
    }
  });

  it('excludes one before the compliance date (ix), and not one at it', () => {
    expect(disclosure({ timestampMs: COMPLIANCE_DATE_MS - 1 }).exclusion).toBe('before_compliance_date');
    expect(disclosure({ timestampMs: COMPLIANCE_DATE_MS }).status).toBe('reportable');
  });

  it('excludes by purpose only what HIPAA makes treatment, payment, operations (i) or a directory (v)', () => {
    const excluded = Object.fromEntries(
      [...PURPOSE_OF_USE.keys()].map((code) => [code, disclosure({ purpose_of_use: code }).exclusion]),
    );
    for (const code of [
      'TREAT',
      'ETREAT',
      'BTG',
      'COC',
      'HPAYMT',
      'CLMATTCH',
      'HOPERAT',
      'HQUALIMP',
      'FRAUD',
      'HTEST',
    ]) {
      expect(excluded[code], code).toBe('treatment_payment_operations');
    }
    expect(excluded.HDIRECT).toBe('directory_or_involved_persons');
    // Filed by HL7 under treatment, payment or operations, but disclosures HIPAA 164.512 makes reportable.
    for (const code of ['GOV', 'HLEGAL', 'HDECD', 'DONAT', 'MILCDM', 'MILDCRG', 'HPRGRP', 'CLINTRL']) {
      expect(excluded[code], code).toBeNull();
    }
    for (const code of ['PUBHLTH', 'THREAT', 'HRESCH', 'HMARKT', 'PATRQT'])
      expect(excluded[code], code).toBeNull();
  });

  it('every purpose the mapping names is a purpose of use', () => {
    for (const code of PURPOSE_EXCLUSIONS.keys()) expect(PURPOSE_OF_USE.has(code), code).toBe(true);
  });

  it('never accounts for a disclosure that failed: nothing left', () => {
    expect(disclosure({ success: false, purpose_of_use: 'HRESCH' })).toEqual({
      status: 'attempted',
      exclusion: null,
    });
  });

  it('owes the patient every other disclosure, one without a purpose too', () => {
    expect(disclosure({ purpose_of_use: '' })).toEqual({ status: 'reportable', exclusion: null });
    expect(disclosure({ purpose_of_use: 'HRESCH' })).toEqual({ status: 'reportable', exclusion: null });
  });
});

const rowArb = fc.record<PatientAccessRow>({
  event_id: fc.uuid(),
  timestamp: fc
    .integer({ min: 0, max: 4_102_444_800_000 })
    .map((ms) => new Date(ms).toISOString().replace('Z', '+00:00')),
  user_id: fc.constantFrom('u-1', 'u-2', 'Ünïcode', 'a'),
  user_role: fc.constantFrom('', 'nurse'),
  action: fc.constantFrom('phi.read', 'phi.disclose'),
  resource_type: fc.constantFrom('patient', 'claim'),
  resource_id: fc.string({ maxLength: 3 }),
  fields_accessed: fc.constant([]),
  phi_involved: fc.boolean(),
  purpose_of_use: fc.constantFrom('', 'TREAT', 'HRESCH'),
  purpose_display: fc.constant(''),
  justification: fc.string({ maxLength: 3 }),
  disclosure: fc.boolean(),
  recipient: fc.string({ maxLength: 3 }),
  success: fc.boolean(),
  source_ip: fc.constant(''),
  accounting_status: fc.constantFrom('use', 'attempted', 'excluded', 'reportable'),
  exclusion: fc.constantFrom(null, 'authorized', 'treatment_payment_operations'),
  checkpoint: fc.constant(null),
});

describe('sortRows and pageAfter', () => {
  it('sort by any column in either order, ties by time then id, and pages cover the rows once each (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(rowArb, { selector: (r) => r.event_id, maxLength: 40 }),
        fc.constantFrom(...SORT_COLUMNS),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer({ min: 1, max: 7 }),
        (rows, column, order, limit) => {
          const sorted = sortRows([...rows], column, order);
          const key = (r: PatientAccessRow) => {
            const v = r[column];
            return [
              typeof v === 'boolean' ? (v ? '1' : '0') : (v ?? ''),
              r.timestamp,
              r.event_id,
            ] as string[];
          };
          for (let i = 1; i < sorted.length; i++) {
            const [a, b] = [key(sorted[i - 1]!), key(sorted[i]!)];
            const cmp = a.map((x, k) => (x < b[k]! ? -1 : x > b[k]! ? 1 : 0)).find((c) => c !== 0) ?? 0;
            expect(order === 'asc' ? cmp : -cmp).toBeLessThan(0);
          }
          const seen: string[] = [];
          let after: string | null = null;
          for (;;) {
            const page: { rows: PatientAccessRow[]; hasMore: boolean } = pageAfter(sorted, after, limit)!;
            seen.push(...page.rows.map((r) => r.event_id));
            if (!page.hasMore) break;
            after = page.rows.at(-1)!.event_id;
          }
          expect(seen).toEqual(sorted.map((r) => r.event_id));
        },
      ),
    );
  });

  it('continues after the row a cursor names, even when rows arrived before it meanwhile', () => {
    const rows = ['a', 'b', 'c', 'd'].map(
      (id, i) => ({ event_id: id, timestamp: String(i) }) as PatientAccessRow,
    );
    expect(pageAfter(rows, 'b', 10)).toEqual({ rows: rows.slice(2), hasMore: false });
    expect(pageAfter(rows, 'x', 10)).toBeNull();
  });
});
