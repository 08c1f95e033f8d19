import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sqlIdentifier, sqlList, sqlValue } from './sql-quote.js';

const HOSTILE = [
  "'; DROP TABLE audit_events; --",
  "\\'; DROP DATABASE audit; --",
  'back\\slash\\',
  "it's",
  "''",
  '\\',
  'nul\0byte',
  'line\nbreak\r\n\ttab',
  '\x1b[31mansi',
  'emoji 🧾 and ünïcödé',
  '`backtick`',
  '"double"',
  '/* comment */',
  '\\x27 escaped quote text',
];

/** Mirror of ClickHouse's string-literal unescaping, to prove the quoted text decodes to the original. */
function unquote(literal: string): string {
  expect(literal.startsWith("'") && literal.endsWith("'")).toBe(true);
  const body = literal.slice(1, -1);
  const simple: Record<string, string> = {
    '\\': '\\',
    "'": "'",
    '0': '\0',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
  };
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === "'") throw new Error(`unescaped quote at ${i}`);
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = body[++i]!;
    if (next === 'x') {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      out += simple[next] ?? next;
    }
  }
  return out;
}

describe('sqlValue', () => {
  it.each(HOSTILE)('quotes %j into one literal that decodes to itself', (s) => {
    const literal = sqlValue(s);
    expect(unquote(literal)).toBe(s);
    expect(literal.slice(1, -1)).not.toMatch(/(?<!\\)'/);
  });

  it('never lets an arbitrary string escape the literal', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(unquote(sqlValue(s))).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps control characters out of the SQL text', () => {
    expect(sqlValue('a\0b\x01c\x7f')).toBe("'a\\0b\\x01c\\x7f'");
  });

  it('refuses lone surrogates, non-finite numbers and other types', () => {
    expect(() => sqlValue('\uD800x')).toThrow(/surrogate/);
    expect(() => sqlValue('x\uDC00')).toThrow(/surrogate/);
    expect(() => sqlValue(Number.NaN)).toThrow();
    expect(() => sqlValue(Infinity)).toThrow();
    expect(() => sqlValue({} as unknown as string)).toThrow(/unsupported/);
  });

  it('renders numbers, bigints and booleans without quotes', () => {
    expect(sqlValue(1700000000123)).toBe('1700000000123');
    expect(sqlValue(-5)).toBe('-5');
    expect(sqlValue(9007199254740993n)).toBe('9007199254740993');
    expect(sqlValue(true)).toBe('1');
    expect(sqlValue(false)).toBe('0');
  });
});

describe('sqlList and sqlIdentifier', () => {
  it('builds an IN list and refuses an empty one', () => {
    expect(sqlList(['a', "b'"])).toBe("('a', 'b\\'')");
    expect(() => sqlList([])).toThrow();
  });

  it.each(['audit', 'audit_t_1a2b', '_x'])('accepts identifier %s', (name) => {
    expect(sqlIdentifier(name)).toBe(`\`${name}\``);
  });

  it.each(['', '1abc', 'a-b', 'a`b', 'a b', 'x; DROP', 'a'.repeat(200)])('refuses identifier %j', (name) => {
    expect(() => sqlIdentifier(name)).toThrow();
  });
});
