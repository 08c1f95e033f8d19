import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { barChartSvg } from './bench-page/charts.js';
import { benchmarkFiles, chartsDir, detailsDir } from './bench-page/page.js';

describe('docs/benchmarks.md', () => {
  it('is, with its charts and pages of details, what `npm run docs:benchmarks` writes', async () => {
    const files = await benchmarkFiles();
    for (const [file, text] of files) {
      expect(await readFile(file, 'utf8'), `run \`npm run docs:benchmarks\` (${file})`).toBe(text);
    }
    for (const dir of [chartsDir, detailsDir]) {
      const present = (await readdir(dir).catch(() => [])).map((f) => join(dir, f));
      expect(
        present.filter((file) => !files.has(file)),
        'run `npm run docs:benchmarks`',
      ).toEqual([]);
    }
  });

  it('draws a chart the same way twice, and only a chart it knows', async () => {
    const points = [{ label: 'floor', values: { 'events/s': 51_480 } }];
    const svg = await barChartSvg('ingest-rate', points);
    expect(svg).toMatch(/^<svg [^>]*>.*<\/svg>\n$/s);
    expect(svg).toContain('floor');
    expect(await barChartSvg('ingest-rate', points)).toBe(svg);
    await expect(barChartSvg('nothing-of-that-name', points)).rejects.toThrow(/no chart named/);
  });
});
