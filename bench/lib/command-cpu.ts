import { readdirSync, readFileSync } from 'node:fs';

export const TICKS_PER_SECOND = 100;

/** A process's command name, its own CPU (utime + stime) and its reaped children's (cutime + cstime), in ticks. */
export function procTicks(pid: number | string) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return {
    comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    own: fields[11]! + fields[12]!,
    children: fields[13]! + fields[14]!,
  };
}

/**
 * CPU seconds (user + system) used so far by every live process whose command name is `comm` (e.g. `postgres`):
 * a shared server's share of a run is the difference of two readings, give or take processes that came and went
 * in between, and whatever other clients made it do meanwhile. With `reaped`, also the CPU of the children those
 * processes waited for (Postgres's backends come and go, and the postmaster inherits their time when they exit).
 */
export function commandCpuSeconds(comm: string, reaped = false): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const p = procTicks(entry);
      if (p.comm === comm) ticks += p.own + (reaped ? p.children : 0);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICKS_PER_SECOND;
}
