import { readFileSync } from 'node:fs';

/** Resident set size of a process in bytes, from /proc. */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; reports its value at the start and its peak. */
export function rssSampler(pid: number, everyMs = 5) {
  const start = rssBytes(pid);
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, rssBytes(pid));
      return { start, peak, growth: peak - start };
    },
  };
}
