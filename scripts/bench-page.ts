// Writes docs/benchmarks.md, its charts (docs/benchmarks/charts/*.svg) and the benches' pages of details
// (docs/benchmarks/details/*.md) from the benches' latest results (bench/results/*.json) and their descriptions
// (bench/about/*.md).
// Usage: bench-page.ts [--check]: with --check it writes nothing and exits 1, saying which file differs, when the
// committed files are not what it would write.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { benchmarkFiles, chartsDir, detailsDir } from './bench-page/page.js';

/** What the generator's own folders hold that it would not write. */
async function staleFiles(wanted: Map<string, string>): Promise<string[]> {
  const present = await Promise.all(
    [chartsDir, detailsDir].map(async (dir) => (await readdir(dir).catch(() => [])).map((f) => join(dir, f))),
  );
  return present.flat().filter((file) => !wanted.has(file));
}

async function main(check: boolean) {
  const wanted = await benchmarkFiles();
  const stale = await staleFiles(wanted);
  if (check) {
    const differing = [...stale];
    for (const [file, text] of wanted) {
      if ((await readFile(file, 'utf8').catch(() => '')) !== text) differing.push(file);
    }
    for (const file of differing) {
      console.error(`${relative(process.cwd(), file)} is not what \`npm run docs:benchmarks\` writes`);
    }
    if (differing.length > 0) process.exitCode = 1;
    return;
  }
  for (const file of stale) await rm(file);
  for (const [file, text] of wanted) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  console.log(`wrote ${[...wanted.keys()].map((f) => relative(process.cwd(), f)).join(', ')}`);
}

if (import.meta.main) await main(process.argv.includes('--check'));
