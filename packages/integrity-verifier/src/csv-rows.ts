import { LEAF_FIELDS } from './leaf.js';

/**
 * The first columns of an export job's CSV file, in its order (docs/exports.md "Files"): the fields of a leaf, in
 * the leaf's order. A later exporter only adds columns after them.
 */
export const CSV_COLUMNS: readonly string[] = LEAF_FIELDS.map((f) => f.name);

/** Whether a file's first line (without its line end) is the header of an export job's CSV file. */
export const isCsvHeader = (line: string): boolean =>
  line === CSV_COLUMNS.join(',') || line.startsWith(`${CSV_COLUMNS.join(',')},`);

/** A record's fields, or why the text there is not one (the reader goes on at the next line). */
export type CsvRecord = string[] | { problem: string };

// Where one unquoted field ends: a comma or a line end.
const FIELD_END = /[,\r\n]/g;

/**
 * Reads the RFC 4180 record that begins at `at`: its fields, and where the next begins. A quoted field may hold
 * commas, line ends, and double quotes written twice. Returns null when the record may go on past the text and
 * more is to come (`final` false): the caller reads it again with more.
 */
function recordAt(text: string, at: number, final: boolean): { record: CsvRecord; next: number } | null {
  const fields: string[] = [];
  let i = at;
  for (;;) {
    if (text.charCodeAt(i) === 0x22) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1 || (quote + 1 === text.length && !final)) {
          if (!final) return null;
          return { record: { problem: 'a quoted field that does not end' }, next: text.length };
        }
        value += text.slice(from, quote);
        if (text.charCodeAt(quote + 1) !== 0x22) {
          i = quote + 1;
          break;
        }
        value += '"';
        from = quote + 2;
      }
      fields.push(value);
    } else {
      FIELD_END.lastIndex = i;
      const end = FIELD_END.exec(text)?.index ?? text.length;
      fields.push(text.slice(i, end));
      i = end;
    }
    if (i >= text.length) return final ? { record: fields, next: i } : null;
    const c = text.charCodeAt(i);
    if (c === 0x2c) i += 1;
    else if (c === 0x0a) return { record: fields, next: i + 1 };
    else if (c === 0x0d) {
      if (i + 1 === text.length && !final) return null;
      return { record: fields, next: text.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1 };
    } else {
      // Text after a quoted field's closing quote: not RFC 4180. The rest of the line is skipped with it.
      const lineEnd = text.indexOf('\n', i);
      if (lineEnd === -1 && !final) return null;
      return {
        record: { problem: 'text after a quoted field' },
        next: lineEnd === -1 ? text.length : lineEnd + 1,
      };
    }
  }
}

/**
 * The records of CSV text given in chunks (any split, a character never cut), as RFC 4180 reads them, with `\n`
 * accepted for `\r\n`. A blank line is no record.
 */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  let text = '';
  const drain = function* (final: boolean): Generator<CsvRecord> {
    let at = 0;
    while (at < text.length) {
      const read = recordAt(text, at, final);
      if (!read) break;
      at = read.next;
      const { record } = read;
      if (!Array.isArray(record) || record.length > 1 || record[0] !== '') yield record;
    }
    text = text.slice(at);
  };
  for await (const chunk of chunks) {
    text += chunk;
    yield* drain(false);
  }
  yield* drain(true);
}

/**
 * A CSV record as the event the API gives (the object a JSON export holds), by the header's column names:
 * `phi_involved` and `success` are `true` or `false` as booleans, anything else is left as text for the leaf's
 * check to name; every other value is the field's text.
 */
export function rowOfCsv(header: readonly string[], fields: readonly string[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  header.forEach((name, i) => {
    const value = fields[i]!;
    row[name] =
      (name === 'phi_involved' || name === 'success') && (value === 'true' || value === 'false')
        ? value === 'true'
        : value;
  });
  return row;
}
