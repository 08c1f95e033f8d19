/**
 * How long a replay waits before handing on more deliveries, so that it never hands on more than `perSecond`
 * a second on average since it (re)started: `sent` handed on so far, `elapsedMs` since the start.
 */
export function paceWaitMs(sent: number, elapsedMs: number, perSecond: number): number {
  return Math.max(0, (sent / perSecond) * 1000 - elapsedMs);
}
