import { hasLoneSurrogate } from '../unicode.js';

export type SqlValue = string | number | bigint | boolean;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

// Escapes every byte that could end or bend a ClickHouse string literal; all other code points pass through as UTF-8.
const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

export class SqlQuoteError extends Error {
  override name = 'SqlQuoteError';
}

function escapeChar(ch: string): string {
  return ESCAPES[ch] ?? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** The one way a value reaches ClickHouse SQL text (18.16 has no query parameters). */
export function sqlValue(value: SqlValue): string {
  switch (typeof value) {
    case 'string':
      if (hasLoneSurrogate(value)) throw new SqlQuoteError('string contains a lone UTF-16 surrogate');
      // eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
      return `'${value.replace(/[\\'\x00-\x1f\x7f]/g, escapeChar)}'`;
    case 'number':
      if (!Number.isFinite(value)) throw new SqlQuoteError(`not a finite number: ${value}`);
      return Number.isInteger(value) ? value.toFixed(0) : String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? '1' : '0';
    default:
      throw new SqlQuoteError(`unsupported SQL value type: ${typeof value}`);
  }
}

export function sqlList(values: readonly SqlValue[]): string {
  if (values.length === 0) throw new SqlQuoteError('empty SQL list');
  return `(${values.map(sqlValue).join(', ')})`;
}

/** Database and table names come from configuration, never from clients; still checked, then backquoted. */
export function sqlIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new SqlQuoteError(`invalid SQL identifier: ${JSON.stringify(name)}`);
  return `\`${name}\``;
}
