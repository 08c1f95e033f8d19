import { LEAF_FIELDS, LEAF_V2_FIELDS } from './leaf.js';

/**
 * The first columns of an export job's CSV file, in its order (docs/exports.md "Files"): the fields of a leaf, in
 * the leaf's order. A later exporter only adds columns after them.
 */
export const CSV_COLUMNS: readonly string[] = LEAF_FIELDS.map((f) => f.name);

/**
 * The columns of LEAF_V2_FIELDS, in their order: right after CSV_COLUMNS in a file written since they exist, and
 * none of them in one written before.
 */
export const CSV_V2_COLUMNS: readonly string[] = LEAF_V2_FIELDS.map((f) => f.name);

/**
 * The column of a version 3 row's salts (docs/integrity.md "Version 3"): right after CSV_V2_COLUMNS in a file
 * written since events have them, empty for an event without them.
 */
export const CSV_SALTS_COLUMN = 'leaf_salts';

const HEADER = CSV_COLUMNS.join(',');
const V2_HEADER = CSV_V2_COLUMNS.join(',');
const V2_COLUMNS = [...CSV_COLUMNS, ...CSV_V2_COLUMNS];
const V3_COLUMNS = [...V2_COLUMNS, CSV_SALTS_COLUMN];
const FLAGS: ReadonlySet<string> = new Set(
  [...LEAF_FIELDS, ...LEAF_V2_FIELDS].filter((f) => f.kind === 'flag').map((f) => f.name),
);

/** Whether a file's first line (without its line end) is the header of an export job's CSV file. */
export const isCsvHeader = (line: string): boolean => line === HEADER || line.startsWith(`${HEADER},`);

/** Whether the header has CSV_V2_COLUMNS, in their order, right after CSV_COLUMNS. */
const hasV2Columns = (header: readonly string[]): boolean =>
  CSV_V2_COLUMNS.every((name, i) => header[CSV_COLUMNS.length + i] === name);
/** Whether the header has CSV_SALTS_COLUMN right after CSV_V2_COLUMNS. */
const hasSaltsColumn = (header: readonly string[]): boolean =>
  hasV2Columns(header) && header[V2_COLUMNS.length] === CSV_SALTS_COLUMN;

/**
 * Why a header record is not that of an export job's CSV file, or null: the leaf's fields first, in their order,
 * then those of LEAF_V2_FIELDS all in their order or none of them anywhere, then CSV_SALTS_COLUMN there or nowhere,
 * and no column named twice (a later column of a leaf field's name must not stand in for it).
 */
export function csvHeaderProblem(header: readonly string[]): string | null {
  if (CSV_COLUMNS.some((name, i) => header[i] !== name)) return `its header does not begin with ${HEADER}`;
  if (!hasV2Columns(header) && CSV_V2_COLUMNS.some((name) => header.includes(name)))
    return `its header has some of ${V2_HEADER} but not all of them, in this order, right after details`;
  if (!hasSaltsColumn(header) && header.includes(CSV_SALTS_COLUMN))
    return `its header has ${CSV_SALTS_COLUMN} but not right after ${V2_HEADER}`;
  const seen = new Set<string>();
  for (const name of header) {
    if (seen.has(name)) return `its header names ${JSON.stringify(name)} twice`;
    seen.add(name);
  }
  return null;
}

// Where one unquoted field ends: a comma or a line end.
const FIELD_END = /[,\r\n]/g;
/** No event's record comes near this: a file with a longer one is not an export's (its reader would hold it all). */
export const MAX_RECORD_CHARS = 4 << 20;

/**
 * Reads the RFC 4180 record that begins at `at`: its fields (null for a blank line), and where the next begins.
 * A quoted field may hold commas, line ends, and double quotes written twice. Text after a quoted field's closing
 * quote is read on into the field, as Python's csv module reads it. Returns null when the record may go on past
 * the text and more is to come (`final` false): the caller reads it again with more.
 */
function recordAt(
  text: string,
  at: number,
  final: boolean,
): { fields: string[] | null; next: number } | null {
  const first = text.charCodeAt(at);
  if (first === 0x0a) return { fields: null, next: at + 1 };
  if (first === 0x0d) {
    if (at + 1 === text.length && !final) return null;
    return { fields: null, next: text.charCodeAt(at + 1) === 0x0a ? at + 2 : at + 1 };
  }
  const fields: string[] = [];
  let i = at;
  for (;;) {
    let value = '';
    if (text.charCodeAt(i) === 0x22) {
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1 || (quote + 1 === text.length && !final)) {
          if (!final) return null;
          // Unterminated: the field runs to the end, as Python's csv module reads it.
          return { fields: [...fields, value + text.slice(from)], next: text.length };
        }
        value += text.slice(from, quote);
        if (text.charCodeAt(quote + 1) !== 0x22) {
          i = quote + 1;
          break;
        }
        value += '"';
        from = quote + 2;
      }
    }
    FIELD_END.lastIndex = i;
    const end = FIELD_END.exec(text)?.index ?? text.length;
    fields.push(value + text.slice(i, end));
    i = end;
    if (i >= text.length) return final ? { fields, next: i } : null;
    const c = text.charCodeAt(i);
    if (c === 0x2c) i += 1;
    else if (c === 0x0a) return { fields, next: i + 1 };
    else {
      if (i + 1 === text.length && !final) return null;
      return { fields, next: text.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1 };
    }
  }
}

/**
 * The records of CSV text given in chunks (any split, a character never cut), as RFC 4180 reads them, with `\n`
 * or `\r` alone also ending a record. A blank line is no record; a record of one empty field (`""`) is one.
 * Throws a RangeError for a record longer than MAX_RECORD_CHARS.
 */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  let text = '';
  const drain = function* (final: boolean): Generator<string[]> {
    let at = 0;
    while (at < text.length) {
      const read = recordAt(text, at, final);
      if (!read) break;
      at = read.next;
      if (read.fields) yield read.fields;
    }
    text = text.slice(at);
    if (text.length > MAX_RECORD_CHARS)
      throw new RangeError(`a record longer than ${MAX_RECORD_CHARS} characters`);
  };
  for await (const chunk of chunks) {
    text += chunk;
    yield* drain(false);
  }
  yield* drain(true);
}

/**
 * The leaf's columns of a header csvHeaderProblem took: CSV_COLUMNS, then CSV_V2_COLUMNS and CSV_SALTS_COLUMN
 * where it has them.
 */
export const leafColumnsOf = (header: readonly string[]): readonly string[] =>
  hasSaltsColumn(header) ? V3_COLUMNS : hasV2Columns(header) ? V2_COLUMNS : CSV_COLUMNS;

/**
 * A CSV record as the event the API gives (the object a JSON export holds), its leaf fields read by their place
 * in `columns` (leafColumnsOf the header): a flag (`phi_involved`, `success`, `disclosure`) is `true` or `false`
 * as a boolean, anything else is left as text for the leaf's check to name; every other value is the field's
 * text. A record of a header without CSV_V2_COLUMNS leaves those fields out, as a JSON row written before them; an
 * empty CSV_SALTS_COLUMN is left out, as the API leaves out the salts of an event without them.
 */
export function rowOfCsv(fields: readonly string[], columns: readonly string[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((name, i) => {
    const value = fields[i]!;
    if (name === CSV_SALTS_COLUMN && value === '') return;
    row[name] = FLAGS.has(name) && (value === 'true' || value === 'false') ? value === 'true' : value;
  });
  return row;
}
