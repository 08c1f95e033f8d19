const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `1m,5m,30m,2h,12h` (units ms, s, m, h) as milliseconds; null when any item is not a positive duration. */
export function parseDurations(text: string): number[] | null {
  const items = text.split(',').map((s) => s.trim());
  const parsed = items.map((item) => {
    const m = /^(\d{1,9})(ms|s|m|h)$/.exec(item);
    return m ? Number(m[1]) * UNIT_MS[m[2]!]! : null;
  });
  return parsed.every((ms): ms is number => ms !== null && ms > 0) ? parsed : null;
}
