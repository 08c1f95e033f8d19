import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

export interface SystemTicks {
  busy: number;
  total: number;
}

/** Busy and total CPU time of the whole machine so far (all cores, in ticks), from /proc/stat. */
export function systemTicks(): SystemTicks {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * Between two readings: how busy the machine was (percent of all cores), and how much of it was not `oursSeconds`
 * of CPU (other processes, and kernel work no process is charged for), in percent of all cores too.
 */
export function machineShare(from: SystemTicks, to: SystemTicks, oursSeconds: number) {
  const total = to.total - from.total;
  const busy = to.busy - from.busy;
  if (total <= 0) return { busy: NaN, rest: NaN };
  return {
    busy: (100 * busy) / total,
    rest: (100 * Math.max(0, busy - oursSeconds * TICKS_PER_SECOND)) / total,
  };
}
