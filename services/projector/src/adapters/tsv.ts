// ClickHouse's TabSeparated escapes: what would end a field or a row, and the escape character itself.
const TSV_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '\\0',
};

/** A string as one TabSeparated field: data for an INSERT body, never SQL text. */
export function tsvField(value: string): string {
  // eslint-disable-next-line no-control-regex -- NUL must be escaped like the separators
  return value.replace(/[\\\t\n\r\x00]/g, (c) => TSV_ESCAPES[c]!);
}
