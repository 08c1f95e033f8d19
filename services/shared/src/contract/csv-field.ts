// RFC 4180: a field holding a comma, a double quote, CR or LF is quoted. Written here rather than with
// csv-stringify, which leaves a field with a lone LF unquoted when records end in CRLF (checked with 6.9).
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One field of the CSV files the service writes (export files, reports): quoted with its double quotes doubled
 * where RFC 4180 needs it, and verbatim otherwise.
 */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
