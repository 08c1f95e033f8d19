import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { leafSaltsText, type EventRow } from '@audit/shared/contract';
import { CSV_COLUMNS } from '../domain/csv-format.js';
import { RowBinaryDecoder, rowGroups } from '../domain/row-binary.decoder.js';
import { ROW_GROUP_ROWS } from '../domain/row-group.js';
import { rowBinaryOf } from '../test-support/row-binary.js';
import { parquetFile } from './parquet.writer.js';

const row = (i: number): EventRow => ({
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  ts: String(1_763_719_200_000 - i),
  tenant_id: 'acme',
  action: i % 2 ? 'phi.read' : 'admin.key.create',
  user_id: `u-${i}`,
  user_role: 'nurse',
  resource_type: 'patient',
  resource_id: `${i}`,
  fields_accessed: '["dob"]',
  phi_involved: i % 2,
  source_ip: '',
  user_agent: `agent "${i}" ü🧾\r\n\0`,
  justification: '',
  success: i % 3 ? 1 : 0,
  details: `{"seq":${i}}`,
  patient_id: i % 5 ? `p-${i}` : '',
  purpose_of_use: i % 5 ? 'HPAYMT' : '',
  recipient: i % 4 ? '' : `Payer ${i}, "Suite" ü`,
  disclosure: i % 4 ? 0 : 1,
  accounting_exclusion: i % 8 ? '' : 'authorized',
  // What is stored of the salts: none, a seed, or (an event with an erased field) the salts whole.
  leaf_salts: ['', Buffer.alloc(16, i).toString('base64'), Buffer.alloc(128, i).toString('base64')][i % 3]!,
});

/** n rows as the RowBinary decoder lays them out from the window's reads. */
async function* rows(n: number) {
  const bytes = rowBinaryOf(Array.from({ length: n }, (_, i) => row(i)));
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += 65_536) yield bytes.subarray(at, at + 65_536);
  }
  yield* rowGroups(chunks(), new RowBinaryDecoder(ROW_GROUP_ROWS));
}

async function written(n: number) {
  const chunks: Buffer[] = [];
  const groups: number[] = [];
  for await (const chunk of parquetFile(rows(n), (count) => groups.push(count))) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  return { file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), groups };
}

describe('parquetFile', () => {
  it('writes typed columns in the CSV order, row groups of 10,000, read back as written by hyparquet', async () => {
    const { file, groups } = await written(25_000);
    expect(groups).toEqual([10_000, 10_000, 5000]);
    const meta = parquetMetadata(file);
    expect(meta.row_groups.map((g) => Number(g.num_rows))).toEqual([10_000, 10_000, 5000]);
    expect(meta.schema.slice(1).map((e) => [e.name, e.type, e.repetition_type])).toEqual(
      CSV_COLUMNS.map((name) => [
        name,
        name === 'timestamp'
          ? 'INT64'
          : name === 'phi_involved' || name === 'success' || name === 'disclosure'
            ? 'BOOLEAN'
            : 'BYTE_ARRAY',
        'REQUIRED',
      ]),
    );
    expect(meta.schema[2]!.logical_type).toEqual({
      type: 'TIMESTAMP',
      isAdjustedToUTC: true,
      unit: 'MILLIS',
    });
    const objects = await parquetReadObjects({ file, rowStart: 19_999, rowEnd: 20_001 });
    const expected = (i: number) => ({
      ...row(i),
      timestamp: new Date(Number(row(i).ts)),
      phi_involved: row(i).phi_involved === 1,
      success: row(i).success === 1,
      disclosure: row(i).disclosure === 1,
      leaf_salts: row(i).leaf_salts && leafSaltsText(row(i).leaf_salts),
    });
    for (const [k, i] of [19_999, 20_000].entries()) {
      const { ts: _ts, ...want } = expected(i);
      expect(objects[k]).toEqual(want);
    }
  });

  it('writes a valid file with no row group for an empty window', async () => {
    const { file, groups } = await written(0);
    expect(groups).toEqual([]);
    expect(Number(parquetMetadata(file).num_rows)).toBe(0);
  });
});
