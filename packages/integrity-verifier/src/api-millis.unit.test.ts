import { describe, expect, it } from 'vitest';
import { apiMillis } from './leaf.js';

// What apiMillis refused and accepted when it checked each time against a Date made from it: its arithmetic
// must agree on every text.
const API_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:\+00:00|Z)$/;
function byDate(text: unknown): number | null {
  if (typeof text !== 'string' || !API_TIME.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && new Date(ms).toISOString() === text.replace('+00:00', 'Z') ? ms : null;
}

const two = (n: number) => String(n).padStart(2, '0');
const four = (n: number) => String(n).padStart(4, '0');

describe('apiMillis', () => {
  it("reads the API's times, with either way of writing UTC", () => {
    expect(apiMillis('2026-11-18T11:06:40.123+00:00')).toBe(Date.UTC(2026, 10, 18, 11, 6, 40, 123));
    expect(apiMillis('2026-11-18T11:06:40.123Z')).toBe(Date.UTC(2026, 10, 18, 11, 6, 40, 123));
    expect(apiMillis('1970-01-01T00:00:00.000Z')).toBe(0);
    expect(apiMillis('1969-12-31T23:59:59.999Z')).toBe(-1);
  });

  it('refuses dates and times that do not exist', () => {
    for (const text of [
      '2026-04-31T00:00:00.000Z',
      '2026-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-00-01T00:00:00.000Z',
      '2026-01-00T00:00:00.000Z',
      '2026-01-32T00:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T23:60:00.000Z',
      '2026-01-01T23:59:60.000Z',
    ])
      expect(apiMillis(text), text).toBeNull();
    expect(apiMillis('2024-02-29T00:00:00.000Z')).toBe(Date.UTC(2024, 1, 29));
    expect(apiMillis('2000-02-29T00:00:00.000Z')).toBe(Date.UTC(2000, 1, 29));
  });

  it('refuses anything not written as the API writes it', () => {
    for (const text of [
      '2026-11-18T11:06:40+00:00',
      '2026-11-18T11:06:40.12Z',
      '2026-11-18T11:06:40.1234Z',
      '2026-11-18 11:06:40.123Z',
      '2026-11-18T11:06:40.123+01:00',
      '2026-11-18T11:06:40.123-00:00',
      '2026-11-18T11:06:40.123z',
      '+02026-11-18T11:06:40.123Z',
      '2026-11-18T11:06:40.123Z\n',
      ' 2026-11-18T11:06:40.123Z',
      '２026-11-18T11:06:40.123Z',
      '',
      1795000000123,
      null,
      undefined,
    ])
      expect(apiMillis(text), String(text)).toBeNull();
  });

  it('agrees with a Date on every month, day and time boundary, from year 0 to 9999', () => {
    const years = [0, 1, 4, 99, 100, 399, 400, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 2400, 9999];
    let compared = 0;
    for (const year of years)
      for (let month = 0; month <= 13; month++)
        for (let day = 0; day <= 32; day++) {
          const date = `${four(year)}-${two(month)}-${two(day)}`;
          for (const time of [
            '00:00:00.000',
            '23:59:59.999',
            '24:00:00.000',
            '12:60:00.000',
            '12:00:60.000',
          ]) {
            for (const zone of ['Z', '+00:00']) {
              const text = `${date}T${time}${zone}`;
              expect(apiMillis(text), text).toBe(byDate(text));
              compared += 1;
            }
          }
        }
    for (let hour = 0; hour <= 99; hour += 1)
      for (let minute = 0; minute <= 99; minute += 7)
        for (const second of [0, 59, 60, 99]) {
          const text = `2026-06-30T${two(hour)}:${two(minute)}:${two(second)}.500Z`;
          expect(apiMillis(text), text).toBe(byDate(text));
          compared += 1;
        }
    expect(compared).toBeGreaterThan(70_000);
  });
});
