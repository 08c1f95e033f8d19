import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { leafSaltsText, type EventRow } from '@audit/shared/contract';
import type { ExportJobFormat } from '@audit/shared/export-jobs';
import { CSV_HEADER } from '../domain/csv-format.js';
import { rowBinaryOf } from '../test-support/row-binary.js';
import { writeFile, type WindowSource } from './file.writer.js';

const row = (i: number): EventRow => ({
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  ts: String(1_763_719_200_000 - i),
  tenant_id: 'acme',
  action: 'phi.read',
  user_id: `u-${i}`,
  user_role: 'nurse',
  resource_type: 'patient',
  resource_id: `${i}`,
  fields_accessed: '["dob"]',
  phi_involved: 1,
  source_ip: '',
  user_agent: 'x'.repeat(300),
  justification: '',
  success: 0,
  details: '{}',
  patient_id: `p-${i % 7}`,
  purpose_of_use: 'TREAT',
  recipient: '',
  disclosure: 0,
  accounting_exclusion: '',
  leaf_salts: i % 2 ? '' : Buffer.alloc(16, i).toString('base64'),
});

/** n rows in batches of uneven sizes (an empty one among them), as the window's reads deliver them. */
async function* rows(n: number) {
  yield [];
  for (let i = 0; i < n; i += 777) yield Array.from({ length: Math.min(777, n - i) }, (_, j) => row(i + j));
}

/** The same rows as RowBinary, in chunks that cut rows anywhere. */
async function* rowBinary(batches: AsyncIterable<EventRow[]>) {
  for await (const batch of batches) {
    const bytes = rowBinaryOf(batch);
    for (let at = 0; at < bytes.length; at += 5000) yield bytes.subarray(at, at + 5000);
  }
}

const source = (batches: () => AsyncIterable<EventRow[]>): WindowSource => ({
  rows: batches,
  rowBinary: () => rowBinary(batches()),
});

/** Writes n rows and returns the stored bytes with the manifest. */
async function written(format: ExportJobFormat, n: number) {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const progress = { rowsWritten: 0, bytesWritten: 0 };
  const manifest = await writeFile(
    format,
    source(() => rows(n)),
    out,
    progress,
  );
  return { bytes: Buffer.concat(chunks), manifest, progress };
}

describe('writeFile', () => {
  it('writes gzip NDJSON, one event per line as the list shows it, over many pieces', async () => {
    const { bytes, manifest, progress } = await written('ndjson', 1000);
    const lines = gunzipSync(bytes).toString().trimEnd().split('\n');
    expect(lines).toHaveLength(1000);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      event_id: row(0).event_id,
      timestamp: '2025-11-21T10:00:00.000+00:00',
      phi_involved: true,
      success: false,
      // The salts derived from the seed stored, as the list gives them.
      leaf_salts: leafSaltsText(row(0).leaf_salts),
    });
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('leaf_salts');
    expect(manifest).toEqual({
      rowCount: 1000,
      byteSize: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      first: { ts: Number(row(0).ts), eventId: row(0).event_id },
      last: { ts: Number(row(999).ts), eventId: row(999).event_id },
    });
    expect(progress).toEqual({ rowsWritten: 1000, bytesWritten: bytes.length });
  });

  it('writes the CSV header even for an empty window, and no positions', async () => {
    const { bytes, manifest } = await written('csv', 0);
    expect(gunzipSync(bytes).toString()).toBe(CSV_HEADER);
    expect(manifest).toMatchObject({ rowCount: 0, first: null, last: null });
  });

  it('writes Parquet from the RowBinary read, with the same manifest positions as the text files', async () => {
    const { bytes, manifest, progress } = await written('parquet', 25_000);
    expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    expect(manifest).toEqual({
      rowCount: 25_000,
      byteSize: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      first: { ts: Number(row(0).ts), eventId: row(0).event_id },
      last: { ts: Number(row(24_999).ts), eventId: row(24_999).event_id },
    });
    expect(progress).toEqual({ rowsWritten: 25_000, bytesWritten: bytes.length });
    expect((await written('parquet', 0)).manifest).toMatchObject({ rowCount: 0, first: null, last: null });
  });
});

describe('writeFile when something fails', () => {
  async function* failing() {
    yield [row(0)];
    throw new Error('ClickHouse went away');
  }

  it.each(['ndjson', 'csv', 'parquet'] as const)(
    '%s: rejects with the read error, and with the destination error, never hangs',
    async (format) => {
      const progress = { rowsWritten: 0, bytesWritten: 0 };
      const sink = new PassThrough();
      sink.resume();
      await expect(writeFile(format, source(failing), sink, progress)).rejects.toThrow(
        'ClickHouse went away',
      );
      const broken = new PassThrough();
      setImmediate(() => broken.destroy(new Error('disk full')));
      await expect(
        writeFile(
          format,
          source(() => rows(100_000)),
          broken,
          progress,
        ),
      ).rejects.toThrow('disk full');
    },
  );
});
