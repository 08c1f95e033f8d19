import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { tsvField } from './tsv.js';

/** Mirror of ClickHouse's TabSeparated unescaping. */
function untsv(field: string): string {
  const map: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r', '0': '\0' };
  return field.replace(/\\(.)/g, (_, c: string) => map[c] ?? c);
}

describe('tsvField', () => {
  it.each(['plain', 'tab\there', 'line\nbreak\r\n', 'nul\0', 'back\\slash\\t', 'quote \' "', '🧾 ü'])(
    'keeps %j on one field that decodes to itself',
    (s) => {
      const field = tsvField(s);
      expect(field).not.toMatch(/[\t\n\r\0]/);
      expect(untsv(field)).toBe(s);
    },
  );

  it('round-trips any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => untsv(tsvField(s)) === s));
  });
});
