import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { barChartSvg } from './bench-page/charts.js';
import { benchmarksPage, chartsDir, pagePath } from './bench-page/page.js';

describe('docs/benchmarks.md', () => {
  it('is what `npm run docs:benchmarks` writes from the benches’ results, charts included', async () => {
    const { page, charts } = await benchmarksPage();
    expect(await readFile(pagePath, 'utf8'), 'run `npm run docs:benchmarks`').toBe(page);
    for (const [file, svg] of charts) {
      expect(await readFile(join(chartsDir, file), 'utf8'), `run \`npm run docs:benchmarks\` (${file})`).toBe(
        svg,
      );
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
