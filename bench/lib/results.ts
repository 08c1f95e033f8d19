import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchResult, BenchRow, ChartPoint } from '../../scripts/bench-page/bench-result.js';

/** Where every bench writes its latest result; `npm run docs:benchmarks` makes docs/benchmarks.md from them. */
export const RESULTS_DIR = join(import.meta.dirname, '..', 'results');

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();

/** HEAD, and whether the code differs from it; what the benches and the page generator write does not count. */
function commit(): string {
  const head = git('rev-parse', '--short', 'HEAD');
  const changed = git(
    'status',
    '--porcelain',
    '--untracked-files=no',
    '--',
    '.',
    ':!bench/results',
    ':!docs',
  );
  return changed === '' ? head : `${head} with changes`;
}

function machine(): string {
  const model = cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${availableParallelism()} cores (${model}), ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}`;
}

const load = () => Math.round(loadavg()[0]! * 100) / 100;

/**
 * A bench's result as it runs: each row is printed when it is known and kept; `save` writes them with the run's
 * machine, commit, times and load to `bench/results/<bench>.json`, with every `BENCH_*` variable the run was given.
 * A run narrowed by one of the variables named in `narrowedBy` (fewer parts, formats or events) is printed but not
 * saved: the latest result is a whole run's.
 */
export function benchResults(bench: string, narrowedBy: string[] = []) {
  const given = Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_'))
    .map(([name, value]) => `${name}=${value}`)
    .sort();
  const narrowed = given.filter((setting) => narrowedBy.includes(setting.split('=')[0]!));
  // The code measured is the code at the start: a commit made while the bench runs changes nothing it runs.
  const measured = commit();
  const started = new Date().toISOString();
  const loadAtStart = load();
  const rows: BenchRow[] = [];
  const charts: Record<string, ChartPoint[]> = {};
  const record = (detail: boolean) => (measure: string, result: string, goal?: Goal) => {
    rows.push({
      measure,
      result,
      ...(goal ? { goal: goal.text, met: goal.met } : {}),
      ...(detail ? { detail } : {}),
    });
    console.log(
      `${measure}: ${result}${goal ? `  (goal ${goal.text}: ${goal.met ? 'met' : 'MISSED'})` : ''}`,
    );
  };
  return {
    row: record(false),
    /** A row of one case among many, which the results page leaves to the bench's page of details. */
    detail: record(true),
    /** One bar group of a chart the results page draws (`scripts/bench-page/charts.ts` names the charts). */
    point(chart: string, label: string, values: Record<string, number>) {
      (charts[chart] ??= []).push({ label, values });
    },
    save(notes: string[] = []) {
      if (narrowed.length > 0) {
        console.log(`\na run narrowed by ${narrowed.join(', ')}: not saved as the latest result`);
        return;
      }
      const result: BenchResult = {
        bench,
        command: `npm run bench:${bench}`,
        machine: machine(),
        node: process.version,
        commit: measured,
        started,
        finished: new Date().toISOString(),
        load: { start: loadAtStart, end: load() },
        rows,
        charts,
        notes: given.length > 0 ? [...notes, `run with ${given.join(', ')}`] : notes,
      };
      mkdirSync(RESULTS_DIR, { recursive: true });
      const file = join(RESULTS_DIR, `${bench}.json`);
      writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
      console.log(`\n${rows.map((r) => `  ${r.measure}: ${r.result}`).join('\n')}\nwritten to ${file}`);
    },
  };
}

export type BenchResults = ReturnType<typeof benchResults>;

interface Goal {
  text: string;
  met: boolean;
}

/** A goal and whether the run met it, as a row records it. */
export const goal = (text: string, met: boolean): Goal => ({ text, met });
