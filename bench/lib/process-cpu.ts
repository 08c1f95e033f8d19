import { commandCpuSeconds, procTicks, TICKS_PER_SECOND } from './command-cpu.js';

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  return procTicks(pid).own / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by the given processes (undefined or gone: not counted) and by every process of the
 * given command names (shared servers: `commandCpuSeconds`).
 */
export function runCpuSeconds(pids: readonly (number | undefined)[], commands: readonly string[]): number {
  let seconds = 0;
  for (const comm of commands) seconds += commandCpuSeconds(comm);
  for (const pid of pids) {
    try {
      seconds += pid === undefined ? 0 : cpuSeconds(pid);
    } catch {
      // a process stopped meanwhile
    }
  }
  return seconds;
}
