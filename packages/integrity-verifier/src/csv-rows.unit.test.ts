import { describe, expect, it } from 'vitest';
import { CSV_HEADER, csvRecord } from '../../../services/exporter/src/domain/csv-format.js';
import { CSV_COLUMNS, csvRecords, isCsvHeader, rowOfCsv, type CsvRecord } from './csv-rows.js';

async function* chunked(text: string, ...cuts: number[]) {
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    yield text.slice(at, cut);
    at = cut;
  }
}

async function records(chunks: AsyncIterable<string>): Promise<CsvRecord[]> {
  const all: CsvRecord[] = [];
  for await (const r of csvRecords(chunks)) all.push(r);
  return all;
}

// An event as the list gives it, with every character the CSV writer must quote.
const hostile = {
  event_id: '00000000-0000-4000-8000-000000000001',
  timestamp: '2026-11-01T00:00:00.000Z',
  tenant_id: 'acme',
  action: 'phi.read',
  user_id: 'a,b',
  user_role: '"quoted"',
  resource_type: 'line\r\nbreak',
  resource_id: 'lone\rcr and lone\nlf',
  fields_accessed: '["dob","a,\\"b\\""]',
  phi_involved: true,
  source_ip: '203.0.113.7',
  user_agent: '""',
  justification: '',
  success: false,
  details: '{"k":"v, \\"w\\"\\n"}',
};

describe('csvRecords', () => {
  it("reads back the exporter's records, however the text is cut into chunks", async () => {
    const text = CSV_HEADER + csvRecord(hostile) + csvRecord({ ...hostile, user_id: 'plain' });
    const expected = [
      [...CSV_COLUMNS],
      CSV_COLUMNS.map((c) => String(hostile[c as keyof typeof hostile])),
      CSV_COLUMNS.map((c) => (c === 'user_id' ? 'plain' : String(hostile[c as keyof typeof hostile]))),
    ];
    expect(await records(chunked(text))).toEqual(expected);
    for (let cut = 0; cut <= text.length; cut++) {
      expect(await records(chunked(text, cut)), `cut at ${cut}`).toEqual(expected);
    }
    expect(await records(chunked(text, ...Array.from({ length: text.length }, (_, i) => i)))).toEqual(
      expected,
    );
  });

  it('takes LF line ends and a last record without one, and skips blank lines', async () => {
    expect(await records(chunked('a,b\n\n"c\nd",\r\n\r\ne,"f"'))).toEqual([
      ['a', 'b'],
      ['c\nd', ''],
      ['e', 'f'],
    ]);
  });

  it('names a quoted field that does not end, and text after a closing quote, and goes on', async () => {
    expect(await records(chunked('"a"x,b\r\nc,d\r\n"e,f'))).toEqual([
      { problem: 'text after a quoted field' },
      ['c', 'd'],
      { problem: 'a quoted field that does not end' },
    ]);
  });
});

describe('rowOfCsv', () => {
  it('gives the flags as booleans and leaves anything else as text', () => {
    expect(rowOfCsv(['phi_involved', 'success', 'user_id'], ['true', 'false', 'true'])).toEqual({
      phi_involved: true,
      success: false,
      user_id: 'true',
    });
    expect(rowOfCsv(['phi_involved', 'success'], ['TRUE', ''])).toEqual({
      phi_involved: 'TRUE',
      success: '',
    });
  });
});

describe('isCsvHeader', () => {
  it("knows the exporter's header, also with columns added after, and nothing else", () => {
    expect(isCsvHeader(CSV_HEADER.trimEnd())).toBe(true);
    expect(isCsvHeader(`${CSV_HEADER.trimEnd()},later_field`)).toBe(true);
    expect(isCsvHeader(`${CSV_HEADER.trimEnd()}x`)).toBe(false);
    expect(isCsvHeader('event_id,timestamp')).toBe(false);
    expect(isCsvHeader('{"event_id":"x"}')).toBe(false);
  });
});
