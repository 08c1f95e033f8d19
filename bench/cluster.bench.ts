// npm run bench:cluster — the same workload on the single-node stack and on the cluster shape, in one run:
// ingest → queryable events/s with one ingest and one projector on each, list and export latency through a
// gateway (the cluster's reads go through its Distributed tables), and the resident memory of each set of engines.
// Needs both up: `npm run stack -- up` and `npm run cluster -- up engines`.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchResults, goal, type BenchResults } from './lib/results.js';
import { fmt } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RATIO_GOAL = 60;
const LIST_P99_GOAL_MS = 50;
const EXPORT_P99_GOAL_MS = 500;

interface Latency {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
interface Side {
  events: number;
  acknowledgedPerS: number;
  queryablePerS: number;
  ingestProjectorCpuUs: number;
  /** Each kind of engine's CPU per event while the events were ingested and projected. */
  engineCpuUs: Record<string, number>;
  list: Latency;
  export: Latency;
  /** The same rows straight from ClickHouse: the least an export of them costs. */
  exportFloor: Latency;
  /** What the side made (topics, databases), for its removal. */
  names: unknown;
}

/** `export X=Y` lines of a stack script's `env`, as an environment. */
function envOf(script: string): Record<string, string> {
  const out = execFileSync('bash', [script, 'env'], { cwd: ROOT, encoding: 'utf8' });
  return Object.fromEntries(
    out
      .split('\n')
      .map((l) => /^export ([A-Z0-9_]+)=(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

// Only the engines' addresses differ between the sides: nothing of the caller's cluster settings leaks into the
// single-node side.
const ENGINE_VARIABLES = [
  'CLICKHOUSE_URL',
  'CLICKHOUSE_CLUSTER',
  'CLICKHOUSE_NODE_URLS',
  'KAFKA_BROKERS',
  'KAFKA_REPLICATION_FACTOR',
  'DATABASE_URL',
  'DATABASE_STANDBY_URL',
  'GATEWAY_URL',
  'INGEST_URL',
];

function workload(engines: Record<string, string>, extra: Record<string, string>) {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ENGINE_VARIABLES) delete env[name];
  return spawnSync(process.execPath, ['--import', 'tsx', 'bench/lib/cluster-workload.ts'], {
    cwd: ROOT,
    env: { ...env, ...engines, ...extra },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

function runSide(label: string, engines: Record<string, string>, enginePaths: readonly string[]): Side {
  const child = workload(engines, { BENCH_ENGINE_PATHS: enginePaths.join(',') });
  const last = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !last.startsWith('{')) {
    throw new Error(`the ${label} side failed (exit ${child.status}):\n${child.stdout}`);
  }
  return JSON.parse(last) as Side;
}

/** Removes a measured side's topics and databases. */
function cleanSide(label: string, engines: Record<string, string>, side: Side) {
  const child = workload(engines, { BENCH_CLUSTER_CLEAN: JSON.stringify(side.names) });
  if (child.status !== 0) console.error(`removing the ${label} side's data failed (exit ${child.status})`);
}

/** The resident memory of the running processes whose command line names one of these paths. */
function rssOf(paths: readonly string[]): { processes: number; bytes: number } {
  let processes = 0;
  let bytes = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!paths.some((p) => cmdline.includes(p))) continue;
      const rss = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (!rss) continue;
      processes++;
      bytes += Number(rss[1]) * 1024;
    } catch {
      // The process ended while being read.
    }
  }
  return { processes, bytes };
}

const ms = (n: number) => fmt(n, 1);
const latency = (l: Latency) => `p50 ${ms(l.p50)}  p99 ${ms(l.p99)}  max ${ms(l.max)} ms`;
const tenths = (n: number) => Math.round(n * 10) / 10;
const sides = (single: string, cluster: string) => `single node ${single}; cluster ${cluster}`;
const mib = (rss: { processes: number; bytes: number }) =>
  `${fmt(rss.bytes / 2 ** 20)} MiB (${rss.processes} processes)`;

/** The rates, each beside the single node's: the rows and the 'cluster-rate' chart (events/s). */
function rates(results: BenchResults, single: Side, cluster: Side) {
  const rate = (measure: string, of: (side: Side) => number) =>
    results.point('cluster-rate', measure, {
      'single node': Math.round(of(single)),
      cluster: Math.round(of(cluster)),
    });
  const ratio = (100 * cluster.queryablePerS) / single.queryablePerS;
  results.row('events', sides(fmt(single.events), fmt(cluster.events)));
  results.row(
    'ingest acknowledged, ev/s',
    sides(fmt(single.acknowledgedPerS), fmt(cluster.acknowledgedPerS)),
  );
  results.row(
    'ingest → queryable, ev/s',
    `${sides(fmt(single.queryablePerS), fmt(cluster.queryablePerS))} (cluster ${fmt(ratio, 1)} % of single)`,
    goal(`cluster ≥ ${RATIO_GOAL} % of single`, ratio >= RATIO_GOAL),
  );
  rate('ingest acknowledged, ev/s', (side) => side.acknowledgedPerS);
  rate('ingest → queryable, ev/s', (side) => side.queryablePerS);
}

/** The CPU each event cost, in all and by kind of engine. */
function cpu(results: BenchResults, single: Side, cluster: Side) {
  results.row(
    'ingest + projector CPU, µs/event',
    sides(fmt(single.ingestProjectorCpuUs, 1), fmt(cluster.ingestProjectorCpuUs, 1)),
  );
  const kinds = new Set([...Object.keys(single.engineCpuUs), ...Object.keys(cluster.engineCpuUs)]);
  for (const kind of [...kinds].sort()) {
    results.row(
      `${kind} CPU, µs/event`,
      sides(fmt(single.engineCpuUs[kind] ?? 0, 1), fmt(cluster.engineCpuUs[kind] ?? 0, 1)),
    );
  }
}

/** The read latencies, each beside the single node's: the rows and the 'cluster-latency' chart (ms p99). */
function latencies(results: BenchResults, single: Side, cluster: Side) {
  const p99 = (measure: string, of: (side: Side) => Latency) =>
    results.point('cluster-latency', measure, {
      'single node': tenths(of(single).p99),
      cluster: tenths(of(cluster).p99),
    });
  results.row(
    'list, limit 100',
    `${sides(latency(single.list), latency(cluster.list))} (${cluster.list.n} requests each)`,
    goal(`cluster p99 ≤ ${LIST_P99_GOAL_MS} ms`, cluster.list.p99 <= LIST_P99_GOAL_MS),
  );
  p99('list, limit 100', (side) => side.list);
  results.row(
    'export of 10,000 rows',
    `${sides(latency(single.export), latency(cluster.export))} (${cluster.export.n} exports each)`,
    goal(`cluster p99 ≤ ${EXPORT_P99_GOAL_MS} ms`, cluster.export.p99 <= EXPORT_P99_GOAL_MS),
  );
  p99('export of 10,000 rows', (side) => side.export);
  results.row(
    'floor: the same rows straight from ClickHouse',
    `${sides(latency(single.exportFloor), latency(cluster.exportFloor))}; the export's p99 is ${fmt(cluster.export.p99 / cluster.exportFloor.p99, 1)}× the floor's on the cluster, ${fmt(single.export.p99 / single.exportFloor.p99, 1)}× on one node`,
  );
  p99('floor: the same rows straight from ClickHouse', (side) => side.exportFloor);
}

function main() {
  const results = benchResults('cluster');
  console.log(`bench:cluster at ${new Date().toISOString()}`);
  // Every engine of either stack runs with its data or config under its own folder of DATA_DIR (.data).
  const data = `${resolve(ROOT, process.env.DATA_DIR ?? '.data')}/`;
  const singlePaths = ['postgres', 'clickhouse', 'kafka'].map((c) => `${data}${c}/`);
  const clusterPaths = [`${data}cluster/`];
  const singleEngines = envOf('infra/local/stack.sh');
  const clusterEngines = envOf('infra/cluster/cluster.sh');
  // Each side's data is removed only once both are measured: a side removed first would slow the next one where
  // the engines' filesystem is ext4 without a journal (as on the machine of docs/benchmarks/journal.md), whose inode
  // allocator steps over every inode freed in the last minute or more before it reuses one, and one insert's
  // parts (the events table and its three views) are about a hundred files on each replica.
  const single = runSide('single-node', singleEngines, singlePaths);
  let cluster: Side;
  try {
    cluster = runSide('cluster', clusterEngines, clusterPaths);
  } catch (err) {
    cleanSide('single-node', singleEngines, single);
    throw err;
  }
  const clusterRss = rssOf(clusterPaths);
  const singleRss = rssOf(singlePaths);
  cleanSide('single-node', singleEngines, single);
  cleanSide('cluster', clusterEngines, cluster);
  rates(results, single, cluster);
  cpu(results, single, cluster);
  latencies(results, single, cluster);
  results.row('engines resident memory (main processes)', sides(mib(singleRss), mib(clusterRss)));
  results.save([
    'the same workload on each side: one ingest and one projector, list and export through a gateway',
  ]);
}

main();
