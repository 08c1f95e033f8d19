import { readdirSync, readFileSync } from 'node:fs';
import { procTicks, TICKS_PER_SECOND } from './command-cpu.js';

const KINDS: [kind: string, marker: string][] = [
  ['clickhouse', 'clickhouse'],
  ['zookeeper', 'QuorumPeerMain'],
  ['kafka', 'kafka'],
  ['postgres', 'postgres'],
  ['haproxy', 'haproxy'],
  ['s3proxy', 's3proxy'],
];

const parentOf = (pid: string) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

/**
 * CPU seconds used so far by the engines whose command line names one of `paths` (their data or config folders),
 * by kind of engine: each such process's own time and its reaped children's, and its live children's (Postgres's
 * backends, whose command lines name no folder).
 */
export function engineCpuSeconds(paths: readonly string[]): Map<string, number> {
  const kindOf = new Map<number, string>();
  const pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const seconds = new Map<string, number>();
  const add = (kind: string, ticks: number) =>
    seconds.set(kind, (seconds.get(kind) ?? 0) + ticks / TICKS_PER_SECOND);
  for (const pid of pids) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!paths.some((p) => cmdline.includes(p))) continue;
      const kind = KINDS.find(([, marker]) => cmdline.includes(marker))?.[0] ?? 'other';
      const ticks = procTicks(pid);
      kindOf.set(Number(pid), kind);
      add(kind, ticks.own + ticks.children);
    } catch {
      // gone meanwhile
    }
  }
  for (const pid of pids) {
    try {
      const kind = kindOf.get(parentOf(pid));
      if (kind && !kindOf.has(Number(pid))) add(kind, procTicks(pid).own);
    } catch {
      // gone meanwhile
    }
  }
  return seconds;
}
