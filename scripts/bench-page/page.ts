import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { benchResult, type BenchResult } from './bench-result.js';
import { barChartSvg, chartTitles } from './charts.js';

const root = join(import.meta.dirname, '..', '..');
export const pagePath = join(root, 'docs', 'benchmarks.md');
/** The charts' folder, under the page's own (which also holds the journal of earlier results). */
export const chartsDir = join(root, 'docs', 'benchmarks', 'charts');
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
const goalCell = (r: BenchResult['rows'][number]) =>
  r.goal ? `${r.goal}: ${r.met ? 'met' : '**MISSED**'}` : '';
const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');

function resultSection(r: BenchResult | undefined, bench: string): string[] {
  if (!r) {
    return [
      '### Latest result',
      '',
      `Not run since the benches write their results as JSON: run \`npm run bench:${bench}\`. Its earlier results`,
      'are in [the journal](benchmarks/journal.md).',
    ];
  }
  return [
    '### Latest result',
    '',
    `${day(r.started)} to ${day(r.finished)} UTC on ${r.machine}; Node ${r.node}, commit \`${r.commit}\`; load`,
    `average ${r.load.start} at the start, ${r.load.end} at the end.`,
    '',
    '| measure | result | goal |',
    '| --- | --- | --- |',
    ...r.rows.map((row) => `| ${cell(row.measure)} | ${cell(row.result)} | ${cell(goalCell(row))} |`),
    ...Object.keys(r.charts).flatMap((name) => [
      '',
      `![${chartTitles[name]?.title ?? name}](benchmarks/charts/${name}.svg)`,
    ]),
    ...(r.notes.length > 0 ? ['', ...r.notes.map((n) => `- ${n}`)] : []),
  ];
}

async function benchSection(bench: string, r: BenchResult | undefined): Promise<string[]> {
  const about = await readFile(join(aboutDir, `${bench}.md`), 'utf8').catch(() => {
    throw new Error(`bench/about/${bench}.md is missing: every bench says what it measures there`);
  });
  const [before, after = ''] = about.split(RESULT_MARK);
  if (!about.includes(RESULT_MARK)) throw new Error(`bench/about/${bench}.md has no ${RESULT_MARK}`);
  return [
    `## \`npm run bench:${bench}\``,
    '',
    before!.trim(),
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
      const goals = r?.rows.filter((row) => row.goal !== undefined) ?? [];
      const met = goals.filter((row) => row.met).length;
      const anchor = `npm-run-bench${bench}`;
      return `| [\`bench:${bench}\`](#${anchor}) | ${r ? `${met} of ${goals.length}` : '-'} | ${r ? day(r.started) : 'not yet'} |`;
    }),
  ];
}

/** The page and its charts (file name → SVG), as `npm run docs:benchmarks` writes them. */
export async function benchmarksPage(): Promise<{ page: string; charts: Map<string, string> }> {
  const benches = await benchNames();
  const known = new Set(benches);
  for (const file of await readdir(resultsDir).catch(() => [])) {
    if (!known.has(file.replace(/\.json$/, '')))
      throw new Error(`bench/results/${file}: no bench of that name`);
  }
  const results = await Promise.all(benches.map(async (b) => [b, await latestResult(b)] as const));
  const charts = new Map<string, string>();
  for (const [, r] of results) {
    for (const [name, points] of Object.entries(r?.charts ?? {}))
      charts.set(`${name}.svg`, await barChartSvg(name, points));
  }
  const sections = await Promise.all(results.map(([b, r]) => benchSection(b, r)));
  const text = [
    '# Benchmarks',
    '',
    'What each benchmark measures, how to run it, its goal and its latest result. Every bench measures its',
    'baselines in the same run and states its results against them: figures move by ±20 % from run to run on a',
    'machine where the engines, the services and the load all share the cores.',
    '',
    'This page is generated by `npm run docs:benchmarks` (`scripts/bench-page.ts`) from the result each bench',
    'writes to `bench/results/<bench>.json` and from the text in `bench/about/<bench>.md`; do not edit it by hand.',
    'A bench run rewrites its JSON file: commit it with the page and its charts. Earlier results are in git',
    '(`git log -p bench/results/`), and those before 2026-11-29, with how each change was measured, in',
    '[the journal](benchmarks/journal.md).',
    '',
    ...overview(results),
    '',
    ...sections.flat(),
  ].join('\n');
  return { page: await format(text, { ...(await resolveConfig(pagePath)), filepath: pagePath }), charts };
}
