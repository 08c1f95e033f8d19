import { commandCpuSeconds, procTicks, TICKS_PER_SECOND } from './command-cpu.js';
import { cpuSeconds } from './process-cpu.js';
import { machineShare, systemTicks } from './system-cpu.js';

/**
 * Where CPU time is read from: a process of ours by its pid, a shared server by its command name (its processes
 * and the children they have reaped: Postgres's backends come and go, and the postmaster inherits their CPU time
 * when they exit), or the children a process has waited for.
 */
export type CpuSource = { pid: number | undefined } | { command: string } | { childrenOf: number };

const read = (source: CpuSource) => {
  try {
    if ('command' in source) return commandCpuSeconds(source.command, true);
    if ('childrenOf' in source) return procTicks(source.childrenOf).children / TICKS_PER_SECOND;
    return source.pid === undefined ? 0 : cpuSeconds(source.pid);
  } catch {
    return 0; // not started, or gone
  }
};

/**
 * Starts counting the CPU of each named source; `stop` gives each one's seconds since, their sum, and the
 * machine's share over the same time (how busy both cores were, and how much of that was none of the sources:
 * another run on the machine shows there).
 */
export function cpuMeter<K extends string>(sources: Record<K, CpuSource>) {
  const names = Object.keys(sources) as K[];
  const before = new Map(names.map((n) => [n, read(sources[n])]));
  const ticks = systemTicks();
  return {
    stop() {
      const seconds = Object.fromEntries(names.map((n) => [n, read(sources[n]) - before.get(n)!])) as Record<
        K,
        number
      >;
      const total = names.reduce((sum, n) => sum + seconds[n], 0);
      return { seconds, total, machine: machineShare(ticks, systemTicks(), total) };
    },
  };
}
