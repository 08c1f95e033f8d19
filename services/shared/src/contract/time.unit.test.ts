import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatTimestamp, MAX_EPOCH_MS, parseRfc3339 } from './time.js';

describe('parseRfc3339', () => {
  it.each([
    ['2026-11-21T10:00:00Z', Date.UTC(2026, 10, 21, 10)],
    ['2026-11-21T10:00:00.5Z', Date.UTC(2026, 10, 21, 10, 0, 0, 500)],
    ['2026-11-21T10:00:00.123456789Z', Date.UTC(2026, 10, 21, 10, 0, 0, 123)],
    ['2026-11-21t10:00:00.999z', Date.UTC(2026, 10, 21, 10, 0, 0, 999)],
    ['2026-11-21T12:30:00+02:30', Date.UTC(2026, 10, 21, 10)],
    ['2026-11-21T05:00:00-05:00', Date.UTC(2026, 10, 21, 10)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['2026-12-31T23:59:59.999Z', Date.UTC(2026, 11, 31, 23, 59, 59, 999)],
  ])('parses %s', (text, expected) => {
    expect(parseRfc3339(text)).toBe(expected);
  });

  it.each([
    '2026-11-21',
    '2026-11-21 10:00:00Z',
    '2026-11-21T10:00:00',
    '2026-11-21T10:00Z',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-11-00T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T10:60:00Z',
    '2026-11-21T10:00:60Z',
    '2026-11-21T10:00:00+24:00',
    '2026-11-21T10:00:00.Z',
    '1969-12-31T23:59:59Z',
    '0099-06-01T00:00:00Z',
    '0070-01-01T00:00:00Z',
    '+2026-11-21T10:00:00Z',
    '1700000000000',
    '',
    ' 2026-11-21T10:00:00Z',
  ])('refuses %j', (text) => {
    expect(parseRfc3339(text)).toBeNull();
  });
});

describe('formatTimestamp', () => {
  it('renders UTC with milliseconds and a +00:00 offset', () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02T03:04:05.006+00:00');
    expect(formatTimestamp(0)).toBe('1970-01-01T00:00:00.000+00:00');
  });

  it('round-trips through the parser', () => {
    const ms = 1763719200123;
    expect(parseRfc3339(formatTimestamp(ms))).toBe(ms);
  });

  it('renders every instant from 1970 to 9999 as toISOString does, in any order of days', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: MAX_EPOCH_MS }), { minLength: 1, maxLength: 20 }),
        (all) => {
          for (const ms of all) {
            expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString().replace('Z', '+00:00'));
          }
        },
      ),
      { numRuns: 2000 },
    );
    expect(formatTimestamp(MAX_EPOCH_MS)).toBe('9999-12-31T23:59:59.999+00:00');
    expect(formatTimestamp(Date.UTC(2024, 1, 29, 23, 59, 59, 999))).toBe('2024-02-29T23:59:59.999+00:00');
  });
});
