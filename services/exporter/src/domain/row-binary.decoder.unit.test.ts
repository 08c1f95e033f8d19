import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leafSaltsText, type EventRow } from '@audit/shared/contract';
import { rowBinaryOf } from '../test-support/row-binary.js';
import { RowBinaryDecoder } from './row-binary.decoder.js';
import { PARQUET_COLUMNS, type RowGroup, type TextColumn } from './row-group.js';

const utf8 = new TextDecoder();

/** A row group back as stored rows. */
function rowsOf(group: RowGroup): EventRow[] {
  return Array.from({ length: group.rows }, (_, r) => {
    const entries = PARQUET_COLUMNS.map(({ name, type }, c) => {
      const column = group.columns[c]!;
      if (type === 'utf8') {
        const { offsets, data } = column as TextColumn;
        return [name, utf8.decode(data.subarray(offsets[r], offsets[r + 1]))];
      }
      if (type === 'timestamp') return ['ts', String((column as BigInt64Array)[r])];
      return [name, ((column as Uint8Array)[r >> 3]! >> (r & 7)) & 1];
    });
    return Object.fromEntries(entries) as EventRow;
  });
}

const text = fc.string({ unit: 'grapheme', maxLength: 200 });
const SEED = Buffer.alloc(16, 3).toString('base64');
const row = fc.record<EventRow>({
  event_id: fc.uuid(),
  ts: fc.bigInt({ min: 0n, max: 253_402_300_799_999n }).map(String),
  tenant_id: text,
  action: text,
  user_id: text,
  user_role: text,
  resource_type: text,
  resource_id: text,
  fields_accessed: text,
  phi_involved: fc.constantFrom(0, 1),
  source_ip: text,
  user_agent: fc.string({ maxLength: 300 }),
  justification: text,
  success: fc.constantFrom(0, 1),
  details: fc.string({ unit: 'grapheme', maxLength: 2000 }),
  patient_id: text,
  purpose_of_use: text,
  recipient: text,
  disclosure: fc.constantFrom(0, 1),
  accounting_exclusion: text,
  // None, a seed, or salts stored whole: each column gives the salts the API gives.
  leaf_salts: fc.constantFrom('', SEED, leafSaltsText(SEED)),
});

describe('RowBinaryDecoder', () => {
  it('reads any rows, cut into chunks anywhere, into full row groups and a last smaller one (property)', () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 20 }),
        (rows, groupRows, cuts) => {
          const bytes = rowBinaryOf(rows);
          const decoder = new RowBinaryDecoder(groupRows);
          const groups: RowGroup[] = [];
          for (let at = 0, i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length]!;
            // A copy each time: the decoder must not keep a view of a chunk it was given.
            groups.push(...decoder.push(bytes.slice(at, at + size)));
            at += size;
          }
          const last = decoder.end();
          if (last) groups.push(last);
          expect(groups.map((g) => g.rows).every((n, i) => n === groupRows || i === groups.length - 1)).toBe(
            true,
          );
          expect(groups.flatMap(rowsOf)).toEqual(
            rows.map((r) => ({ ...r, leaf_salts: r.leaf_salts && leafSaltsText(r.leaf_salts) })),
          );
          const end = rows.at(-1);
          expect(decoder.ends).toEqual({
            first: rows[0] ? { ts: Number(rows[0].ts), eventId: rows[0].event_id } : null,
            last: end ? { ts: Number(end.ts), eventId: end.event_id } : null,
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fails when the bytes end inside a row', () => {
    const bytes = rowBinaryOf([
      { ...({} as EventRow), event_id: 'e', ts: '1', phi_involved: 1, success: 0 } as EventRow,
    ]);
    const decoder = new RowBinaryDecoder(10);
    expect(decoder.push(bytes.subarray(0, bytes.length - 1))).toEqual([]);
    expect(() => decoder.end()).toThrow('ended inside a row');
  });
});
