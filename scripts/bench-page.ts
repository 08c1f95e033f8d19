// Writes docs/benchmarks.md and its charts (docs/benchmarks/*.svg) from the benches' latest results
// (bench/results/*.json) and their descriptions (bench/about/*.md).
// Usage: bench-page.ts [--check]: with --check it writes nothing and exits 1, saying which file differs, when the
// committed files are not what it would write.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { benchmarksPage, chartsDir, pagePath } from './bench-page/page.js';

async function main(check: boolean) {
  const { page, charts } = await benchmarksPage();
  const wanted = new Map([
    [pagePath, page],
    ...[...charts].map(([file, svg]) => [join(chartsDir, file), svg] as const),
  ]);
  const present = (await readdir(chartsDir).catch(() => [])).map((file) => join(chartsDir, file));
  const stale = present.filter((file) => !wanted.has(file));
  if (check) {
    const differing = [];
    for (const [file, text] of wanted)
      if ((await readFile(file, 'utf8').catch(() => '')) !== text) differing.push(file);
    differing.push(...stale);
    for (const file of differing)
      console.error(`${relative(process.cwd(), file)} is not what \`npm run docs:benchmarks\` writes`);
    if (differing.length > 0) process.exitCode = 1;
    return;
  }
  await mkdir(chartsDir, { recursive: true });
  for (const file of stale) await rm(file);
  for (const [file, text] of wanted) await writeFile(file, text);
  console.log(`wrote ${[...wanted.keys()].map((f) => relative(process.cwd(), f)).join(', ')}`);
}

if (import.meta.main) await main(process.argv.includes('--check'));
