/** HIPAA's accounting reaches back six years (164.528(a)): a report's window when none is given. */
export const DEFAULT_REPORT_YEARS = 6;

/** A report is made whole in memory (it is sorted by any column): at most this many of a patient's events. */
export const MAX_REPORT_ROWS = 50_000;

/** `ms` moved back `years` calendar years (February 29 to March 1 of a common year). */
const yearsBefore = (ms: number, years: number) => {
  const date = new Date(ms);
  date.setUTCFullYear(date.getUTCFullYear() - years);
  return date.getTime();
};

/**
 * The report's window: `until` defaults to now (exclusive, so a report made now holds every event until now), and
 * `since` to six calendar years before `until`. A window given whole is taken as it is.
 */
export function resolveWindow(
  q: { since?: number; until?: number },
  now: number,
): { since: number; until: number } {
  const until = q.until ?? now + 1;
  const since = q.since ?? Math.max(0, yearsBefore(until, DEFAULT_REPORT_YEARS));
  return { since, until };
}
