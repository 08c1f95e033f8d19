import type { FieldError } from '@audit/shared/platform';

const DAY_MS = 24 * 3600 * 1000;

/**
 * A window of bounded work (an export job's, a replay's): `until` is `now` when not given, and the window must
 * be non-empty and at most `maxDays` long. The errors name the field to change.
 */
export function boundedWindow(
  since: number,
  given: number | undefined,
  opts: { now: number; maxDays: number },
): { ok: true; since: number; until: number } | { ok: false; errors: FieldError[] } {
  const until = given ?? opts.now;
  if (since >= until) {
    return {
      ok: false,
      errors: [{ field: 'since', message: 'must be earlier than until, which is now when not given' }],
    };
  }
  if (until - since > opts.maxDays * DAY_MS) {
    return {
      ok: false,
      errors: [
        { field: 'since', message: `must be at most ${opts.maxDays} days before until (now when not given)` },
      ],
    };
  }
  return { ok: true, since, until };
}
