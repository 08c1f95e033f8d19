export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Latest instant we render: keeps the four-digit year of the output format. */
export const MAX_EPOCH_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * RFC 3339 date-time to epoch milliseconds; fractions beyond milliseconds are truncated.
 * Returns null for anything else, including impossible dates, years before 1970, and leap seconds (`:60`, valid
 * RFC 3339, but JavaScript time has none: refused rather than silently moved).
 */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  // Date.UTC reads years 0..99 as 1900..1999; nothing before 1970 is accepted anyway.
  if (year < 1970 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (new Date(local).getUTCDate() !== day) return null;
  const offsetHours = Number(m[10] ?? 0);
  const offsetMinutes = Number(m[11] ?? 0);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const sign = m[9] === '-' ? -1 : 1;
  const ms = local - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return ms >= 0 && ms <= MAX_EPOCH_MS ? ms : null;
}

/** The service's one output format: `YYYY-MM-DDTHH:mm:ss.SSS+00:00`. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('Z', '+00:00');
}
