/** Polls until `check` returns a value other than undefined/false; fails with the last value after the deadline. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 120_000, intervalMs = 250 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${String(last)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
