export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Latest instant we render: keeps the four-digit year of the output format. */
export const MAX_EPOCH_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** What `parseRfc3339` accepts, said the same wherever a time is refused (docs/contract.md "Time"). */
export const RFC3339_RULE =
  'must be an RFC 3339 date-time with Z or a numeric offset, from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

/**
 * RFC 3339 date-time to epoch milliseconds; fractions beyond milliseconds are truncated.
 * Returns null for anything else, including impossible dates, years before 1970, and leap seconds (`:60`, valid
 * RFC 3339, but JavaScript time has none: refused rather than silently moved).
 */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  const fraction = m[7];
  const millis = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
  // Date.UTC reads years 0..99 as 1900..1999; nothing before 1970 is accepted anyway.
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const offsetHours = Number(m[10] ?? 0);
  const offsetMinutes = Number(m[11] ?? 0);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const sign = m[9] === '-' ? -1 : 1;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const ms = local - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return ms >= 0 && ms <= MAX_EPOCH_MS ? ms : null;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) =>
  month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;

const DAY_MS = 86_400_000;
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
// The last day rendered, as `YYYY-MM-DDT`: reads and exports render runs of timestamps from one day, and the
// date is what costs (a Date and toISOString per row were 7 % of an export's main thread).
let lastDay = Number.NaN;
let lastDayText = '';

/**
 * The service's one output format: `YYYY-MM-DDTHH:mm:ss.SSS+00:00`, for an instant from 1970 to 9999 (what
 * `parseRfc3339` admits; earlier ones are never stored).
 */
export function formatTimestamp(epochMs: number): string {
  let rest = epochMs % DAY_MS;
  const day = epochMs - rest;
  if (day !== lastDay) {
    lastDayText = new Date(day).toISOString().slice(0, 11);
    lastDay = day;
  }
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${lastDayText}${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}+00:00`;
}
