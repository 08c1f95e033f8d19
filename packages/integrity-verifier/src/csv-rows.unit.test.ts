import { describe, expect, it } from 'vitest';
import {
  CSV_COLUMNS as EXPORTER_COLUMNS,
  CSV_HEADER,
  csvRecord,
} from '../../../services/exporter/src/domain/csv-format.js';
import {
  CSV_COLUMNS,
  CSV_SALTS_COLUMN,
  CSV_V2_COLUMNS,
  csvHeaderProblem,
  csvRecords,
  isCsvHeader,
  leafColumnsOf,
  MAX_RECORD_CHARS,
  rowOfCsv,
} from './csv-rows.js';

async function* chunked(text: string, ...cuts: number[]) {
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    yield text.slice(at, cut);
    at = cut;
  }
}

async function records(chunks: AsyncIterable<string>): Promise<string[][]> {
  const all: string[][] = [];
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
  patient_id: 'p,1',
  purpose_of_use: 'TREAT',
  recipient: 'Acme "Insurance"\r\n',
  disclosure: true,
  accounting_exclusion: '',
  leaf_salts:
    'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn8=',
};

describe('csvRecords', () => {
  it("reads back the exporter's records, however the text is cut into chunks", async () => {
    const text = CSV_HEADER + csvRecord(hostile) + csvRecord({ ...hostile, user_id: 'plain' });
    const expected = [
      [...EXPORTER_COLUMNS],
      EXPORTER_COLUMNS.map((c) => String(hostile[c])),
      EXPORTER_COLUMNS.map((c) => (c === 'user_id' ? 'plain' : String(hostile[c]))),
    ];
    expect(await records(chunked(text))).toEqual(expected);
    for (let cut = 0; cut <= text.length; cut++) {
      expect(await records(chunked(text, cut)), `cut at ${cut}`).toEqual(expected);
    }
    expect(await records(chunked(text, ...Array.from({ length: text.length }, (_, i) => i)))).toEqual(
      expected,
    );
  });

  it('takes LF and lone CR line ends and a last record without one, and skips blank lines but not ""', async () => {
    expect(await records(chunked('a,b\n\n"c\nd",\r\n\r\ne,"f"'))).toEqual([
      ['a', 'b'],
      ['c\nd', ''],
      ['e', 'f'],
    ]);
    expect(await records(chunked('\n\r\na,b\rc,d\r""\r\n\r'))).toEqual([['a', 'b'], ['c', 'd'], ['']]);
    expect(await records(chunked('a\r', 2))).toEqual([['a']]);
  });

  it("reads what RFC 4180 does not allow as Python's csv module does, however the text is cut", async () => {
    // Text after a closing quote is read on into the field; a quote that does not end runs to the end. The
    // expected records are what Python 3.11's csv.reader gives for the same text.
    const cases: [string, string[][]][] = [
      ['"a"x,b\r\nc,d"e\r\n"f,g\r\nh', [['ax', 'b'], ['c', 'd"e'], ['f,g\r\nh']]],
      ['"a"x,b\r\r\n""\r\n"e', [['ax', 'b'], [''], ['e']]],
      [
        '"a"b"c,d"\ra,',
        [
          ['ab"c', 'd"'],
          ['a', ''],
        ],
      ],
    ];
    for (const [text, expected] of cases) {
      for (let cut = 0; cut <= text.length; cut++) {
        expect(await records(chunked(text, cut)), `${JSON.stringify(text)} cut at ${cut}`).toEqual(expected);
      }
    }
  });

  it('refuses a record longer than any event, rather than holding the rest of the file', async () => {
    const long = async function* () {
      yield '"never ends';
      for (let i = 0; i <= MAX_RECORD_CHARS >> 20; i++) yield 'x'.repeat(1 << 20);
    };
    await expect(records(long())).rejects.toThrow(RangeError);
  });
});

// The header of a file written before the fields of version 2, and of one written since.
const OLD_HEADER = CSV_COLUMNS;
const NEW_HEADER = [...CSV_COLUMNS, ...CSV_V2_COLUMNS];

describe('rowOfCsv', () => {
  it('reads the leaf fields by place, the flags as booleans, anything else as text', () => {
    const fields = CSV_COLUMNS.map((c) => (c === 'phi_involved' ? 'true' : c === 'success' ? 'TRUE' : c));
    expect(rowOfCsv([...fields, 'a later column'], leafColumnsOf([...OLD_HEADER, 'later']))).toStrictEqual({
      ...Object.fromEntries(CSV_COLUMNS.map((c) => [c, c])),
      phi_involved: true,
      success: 'TRUE',
    });
    const row = CSV_COLUMNS.map((c) => (c === 'success' ? 'false' : c));
    expect(rowOfCsv(row, leafColumnsOf(OLD_HEADER)).success).toBe(false);
  });

  it("reads the fields of version 2 under a header that has them, disclosure as a flag; none under one that hasn't", () => {
    const fields = [...CSV_COLUMNS, 'p-1042', 'TREAT', '', 'true', 'later value'];
    const row = rowOfCsv(fields, leafColumnsOf([...NEW_HEADER, 'later']));
    expect(row).toMatchObject({
      patient_id: 'p-1042',
      purpose_of_use: 'TREAT',
      recipient: '',
      disclosure: true,
    });
    expect(row.accounting_exclusion).toBe('later value');
    expect(rowOfCsv(fields.with(18, 'false'), leafColumnsOf(NEW_HEADER)).disclosure).toBe(false);
    // A flag that is not one is left as text, which the leaf refuses.
    expect(rowOfCsv(fields.with(18, 'True'), leafColumnsOf(NEW_HEADER)).disclosure).toBe('True');
    // Under the header of before, what stands after details is no field of the leaf.
    const old = rowOfCsv(fields, leafColumnsOf([...OLD_HEADER, ...'abcde']));
    for (const name of CSV_V2_COLUMNS) expect(old).not.toHaveProperty(name);
  });

  it('reads the salts under a header that has them, and leaves out an empty value as the API does', () => {
    const header = [...NEW_HEADER, CSV_SALTS_COLUMN, 'later'];
    const fields = [...CSV_COLUMNS, 'p-1042', 'TREAT', '', 'false', '', hostile.leaf_salts, 'later value'];
    expect(rowOfCsv(fields, leafColumnsOf(header))).toMatchObject({ leaf_salts: hostile.leaf_salts });
    expect(rowOfCsv(fields.with(20, ''), leafColumnsOf(header))).not.toHaveProperty(CSV_SALTS_COLUMN);
    // Under a header of version 2, what stands after its fields is no field of the leaf.
    expect(rowOfCsv(fields, leafColumnsOf([...NEW_HEADER, 'x']))).not.toHaveProperty(CSV_SALTS_COLUMN);
  });
});

describe('csvHeaderProblem', () => {
  it('takes the leaf fields first, in order, and later columns; not a name twice', () => {
    expect(csvHeaderProblem(CSV_COLUMNS)).toBeNull();
    expect(csvHeaderProblem([...CSV_COLUMNS, 'later_field'])).toBeNull();
    expect(csvHeaderProblem([...CSV_COLUMNS, 'details'])).toBe('its header names "details" twice');
    expect(csvHeaderProblem([...CSV_COLUMNS].reverse())).toMatch(/^its header does not begin with event_id,/);
    expect(csvHeaderProblem(CSV_COLUMNS.slice(0, 14))).toMatch(/does not begin/);
  });

  it('takes the fields of version 2 all in their order right after details, or none of them', () => {
    expect(csvHeaderProblem(NEW_HEADER)).toBeNull();
    expect(csvHeaderProblem([...NEW_HEADER, 'later_field'])).toBeNull();
    expect(csvHeaderProblem([...NEW_HEADER, 'patient_id'])).toBe('its header names "patient_id" twice');
    const some =
      /^its header has some of patient_id,purpose_of_use,recipient,disclosure,accounting_exclusion but/;
    for (const header of [
      [...OLD_HEADER, 'patient_id'],
      [...OLD_HEADER, 'later', 'disclosure'],
      [...OLD_HEADER, ...CSV_V2_COLUMNS.slice(0, 4)],
      [...OLD_HEADER, ...CSV_V2_COLUMNS.slice(0, 4), 'accounting_exclusionx'],
      [...OLD_HEADER, ...CSV_V2_COLUMNS.toReversed()],
      [...OLD_HEADER, 'later', ...CSV_V2_COLUMNS],
    ])
      expect(csvHeaderProblem(header), header.slice(15).join()).toMatch(some);
  });

  it('takes the salts right after the fields of version 2, or nowhere', () => {
    expect(csvHeaderProblem([...NEW_HEADER, CSV_SALTS_COLUMN])).toBeNull();
    expect(csvHeaderProblem([...NEW_HEADER, CSV_SALTS_COLUMN, 'later'])).toBeNull();
    expect(csvHeaderProblem(EXPORTER_COLUMNS)).toBeNull();
    for (const header of [
      [...OLD_HEADER, CSV_SALTS_COLUMN],
      [...NEW_HEADER, 'later', CSV_SALTS_COLUMN],
    ])
      expect(csvHeaderProblem(header)).toBe(
        'its header has leaf_salts but not right after patient_id,purpose_of_use,recipient,disclosure,accounting_exclusion',
      );
  });
});

describe('isCsvHeader', () => {
  it("knows the exporter's header, also with columns added after, and nothing else", () => {
    expect(isCsvHeader(CSV_HEADER.trimEnd())).toBe(true);
    expect(isCsvHeader(`${CSV_HEADER.trimEnd()},later_field`)).toBe(true);
    expect(isCsvHeader(OLD_HEADER.join())).toBe(true);
    expect(isCsvHeader(NEW_HEADER.join())).toBe(true);
    expect(isCsvHeader(`${OLD_HEADER.join()}x`)).toBe(false);
    expect(isCsvHeader('event_id,timestamp')).toBe(false);
    expect(isCsvHeader('{"event_id":"x"}')).toBe(false);
  });
});
