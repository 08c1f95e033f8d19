import { describe, expect, it } from 'vitest';
import { inexactDetails, parsesExactly } from './exact-numbers.js';

describe('parsesExactly', () => {
  it.each([
    '0',
    '-0',
    '0.0',
    '1.10',
    '1E+2',
    '15e-1',
    '0.1',
    '123456789012345',
    '9007199254740991',
    '1e308',
    '5e-324',
    '2.5e-300',
    '-12.5',
  ])('keeps %s', (text) => {
    expect(parsesExactly(text)).toBe(true);
  });

  it.each([
    '12345678901234567890',
    '9007199254740993',
    '0.1000000000000000055511',
    '1e400',
    '-1e400',
    '1e-400',
    '3.14159265358979323846',
  ])('does not keep %s', (text) => {
    expect(parsesExactly(text)).toBe(false);
  });
});

describe('inexactDetails', () => {
  const event = (details: string) => `{"tenant_id":"t","action":"a.b","details":${details}}`;

  it('names each event of an array whose details hold an inexact number, however deep', () => {
    const body = `[${event('{"id":12345678901234567890}')},${event('{"ok":1}')},${event('{"a":[1,{"b":1e400}]}')}]`;
    expect(inexactDetails(body, true)).toEqual([
      { index: 0, field: 'details', message: expect.stringContaining('12345678901234567890') },
      { index: 2, field: 'details', message: expect.stringContaining('1e400') },
    ]);
  });

  it('leaves digits inside strings and numbers outside details to the other checks', () => {
    expect(inexactDetails(`[${event('{"card":"12345678901234567890","e":"1e400"}')}]`, true)).toEqual([]);
    expect(inexactDetails(`{"user_id":12345678901234567890,"details":{}}`, false, 3)).toEqual([]);
  });

  it('finds 16 significant digits around a decimal point', () => {
    expect(inexactDetails(event('{"x":1234567.1234567891}'), false)).toEqual([
      { index: 0, field: 'details', message: expect.stringContaining('1234567.1234567891') },
    ]);
  });

  it('numbers an NDJSON line by its index', () => {
    expect(inexactDetails(event('{"x":9007199254740993}'), false, 7)).toEqual([
      { index: 7, field: 'details', message: expect.stringContaining('9007199254740993') },
    ]);
  });
});
