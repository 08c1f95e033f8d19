/**
 * `read`'s answer, kept for `ttlMs` from when it was asked (an answer that took long is not served any longer
 * for it), with one call in flight at most: callers that come while it runs share it, and a failure is not kept
 * (the next caller asks again).
 */
export function recentResult<T>(read: () => Promise<T>, ttlMs: number, clock: () => number = Date.now) {
  let last: { at: number; value: T } | undefined;
  let inFlight: Promise<T> | undefined;
  return (): Promise<T> => {
    if (last && clock() - last.at < ttlMs) return Promise.resolve(last.value);
    const askedAt = clock();
    inFlight ??= read()
      .then((value) => {
        last = { at: askedAt, value };
        return value;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}
