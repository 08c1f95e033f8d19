import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { benchResult, type BenchResult, type BenchRow } from './bench-result.js';
import { barChartSvg, chartTitles } from './charts.js';

const root = join(import.meta.dirname, '..', '..');
export const pagePath = join(root, 'docs', 'benchmarks.md');
/** The folders the generator owns, under the page's own (which also holds the journal of earlier results). */
export const chartsDir = join(root, 'docs', 'benchmarks', 'charts');
export const detailsDir = join(root, 'docs', 'benchmarks', 'details');
const aboutDir = join(root, 'bench', 'about');
const resultsDir = join(root, 'bench', 'results');
/** Where a bench's text puts its latest result; what comes after it says what moved the numbers. */
const RESULT_MARK = '<!-- latest result -->';

/** The benches, in the order of `package.json`'s `bench:*` scripts. */
export async function benchNames(): Promise<string[]> {
  const scripts = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: object })
    .scripts;
  return Object.keys(scripts)
    .filter((s) => s.startsWith('bench:'))
    .map((s) => s.slice('bench:'.length));
}

async function latestResult(bench: string): Promise<BenchResult | undefined> {
  const text = await readFile(join(resultsDir, `${bench}.json`), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = benchResult.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`bench/results/${bench}.json: ${parsed.error.message}`);
  if (parsed.data.bench !== bench) throw new Error(`bench/results/${bench}.json holds ${parsed.data.bench}`);
  return parsed.data;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const goalCell = (r: BenchRow) => (r.goal ? `${r.goal}: ${r.met ? 'met' : '**MISSED**'}` : '');
const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');

function table(rows: BenchRow[]): string[] {
  return [
    '| measure | result | goal |',
    '| --- | --- | --- |',
    ...rows.map((row) => `| ${cell(row.measure)} | ${cell(row.result)} | ${cell(goalCell(row))} |`),
  ];
}

/** When and where: one line, however long the machine's description. */
const ranOn = (r: BenchResult) => {
  const [start, end] = [day(r.started), day(r.finished)];
  const when = start.slice(0, 10) === end.slice(0, 10) ? `${start}-${end.slice(11)}` : `${start} to ${end}`;
  return `ran ${when} UTC on ${r.machine}; Node ${r.node}; commit \`${r.commit}\`; load average ${r.load.start} → ${r.load.end}.`;
};

/** A bench's page of details holds its cases' rows and its notes on how it ran: the results page sums them up. */
const hasDetails = (r: BenchResult) => r.notes.length > 0 || r.rows.some((row) => row.detail);

function resultSection(r: BenchResult | undefined, bench: string): string[] {
  if (!r) {
    return [
      `**Latest result**: not run since the benches write their results as JSON: run \`npm run bench:${bench}\`.`,
      'Its earlier results are in [the journal](benchmarks/journal.md).',
    ];
  }
  const details = r.rows.filter((row) => row.detail).length;
  const more = [
    details > 0 ? `every case and run (${details} rows more)` : '',
    r.notes.length > 0 ? 'how it ran' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const inDetail = hasDetails(r) ? ` In detail, ${more}: [${bench}](benchmarks/details/${bench}.md).` : '';
  return [
    `**Latest result**: ${ranOn(r)}${inDetail}`,
    '',
    ...table(r.rows.filter((row) => !row.detail)),
    ...Object.keys(r.charts).flatMap((name) => [
      '',
      `![${chartTitles[name]?.title ?? name}](benchmarks/charts/${name}.svg)`,
    ]),
  ];
}

/** A bench's page of details: every row of its latest result, the cases' own among them. */
const detailsPage = (r: BenchResult) => [
  `# \`npm run bench:${r.bench}\`: every measure`,
  '',
  `Generated with [the benchmarks page](../../benchmarks.md) from \`bench/results/${r.bench}.json\`; ${ranOn(r)}`,
  '',
  ...table(r.rows),
  ...(r.notes.length > 0 ? ['', ...r.notes.map((n) => `- ${n}`)] : []),
  '',
];

async function benchSection(bench: string, r: BenchResult | undefined): Promise<string[]> {
  const about = await readFile(join(aboutDir, `${bench}.md`), 'utf8').catch(() => {
    throw new Error(`bench/about/${bench}.md is missing: every bench says what it measures there`);
  });
  const [before = '', after, ...more] = about.split(RESULT_MARK);
  if (after === undefined || more.length > 0)
    throw new Error(`bench/about/${bench}.md needs one ${RESULT_MARK}`);
  return [
    `## \`npm run bench:${bench}\``,
    '',
    before.trim(),
    '',
    ...resultSection(r, bench),
    '',
    after.trim(),
    '',
  ];
}

function overview(results: (readonly [string, BenchResult | undefined])[]): string[] {
  return [
    '| bench | goals met | latest run |',
    '| --- | --- | --- |',
    ...results.map(([bench, r]) => {
      const goals = r?.rows.filter((row) => row.goal !== undefined && !row.detail) ?? [];
      const met =
        goals.length > 0 ? `${goals.filter((row) => row.met).length} of ${goals.length}` : 'no goal';
      const anchor = `npm-run-bench${bench}`;
      return `| [\`bench:${bench}\`](#${anchor}) | ${r ? met : '-'} | ${r ? day(r.started) : 'not yet'} |`;
    }),
  ];
}

const intro = [
  '# Benchmarks',
  '',
  'What each benchmark measures, how to run it, its goal and its latest result, each against baselines measured in',
  'the same run (figures move by ±20 % between runs on a machine whose cores the engines, services and load share).',
  'Generated by `npm run docs:benchmarks` from `bench/results/<bench>.json`, which each bench run rewrites (commit',
  'it with the page), and `bench/about/<bench>.md`; do not edit it by hand. Earlier results: `git log -p',
  'bench/results/`, and before 2026-11-29, with how each change was measured, [the journal](benchmarks/journal.md).',
  '',
];

async function markdown(path: string, lines: string[]): Promise<string> {
  return format(lines.join('\n'), { ...(await resolveConfig(path)), filepath: path });
}

/**
 * Every file `npm run docs:benchmarks` writes (path → text): the page, its charts and the benches' pages of
 * details. Those folders hold nothing else.
 */
export async function benchmarkFiles(): Promise<Map<string, string>> {
  const benches = await benchNames();
  const known = new Set(benches);
  for (const file of await readdir(resultsDir).catch(() => [])) {
    if (!known.has(file.replace(/\.json$/, '')))
      throw new Error(`bench/results/${file}: no bench of that name`);
  }
  const results = await Promise.all(benches.map(async (b) => [b, await latestResult(b)] as const));
  const files = new Map<string, string>();
  const sections = await Promise.all(results.map(([b, r]) => benchSection(b, r)));
  files.set(pagePath, await markdown(pagePath, [...intro, ...overview(results), '', ...sections.flat()]));
  for (const [bench, r] of results) {
    if (!r) continue;
    for (const [name, points] of Object.entries(r.charts)) {
      const path = join(chartsDir, `${name}.svg`);
      if (files.has(path)) throw new Error(`two benches draw the chart ${name}`);
      files.set(path, await barChartSvg(name, points));
    }
    if (hasDetails(r)) {
      const path = join(detailsDir, `${bench}.md`);
      files.set(path, await markdown(path, detailsPage(r)));
    }
  }
  return files;
}
