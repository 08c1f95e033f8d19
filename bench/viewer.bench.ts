// npm run bench:viewer — the viewer in Chromium on a tenant with 10 million events (bench:read's dataset): from
// navigation to the first rows shown, and from each further page asked for while scrolling to its rows shown, as the
// page's own User Timing marks say; beside them, the same API reads from Node (the floor the page stands on).
import { execFileSync } from 'node:child_process';
import type { ClickHouseSettings } from '@audit/shared/platform';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CLICKHOUSE_URL } from '../test/support/stack.js';
import { ensureDataset, TARGET_TENANT } from './lib/bulk-load.js';
import { datasetGateway } from './lib/dataset-gateway.js';
import { httpClient } from './lib/http-timing.js';
import { benchResults, goal } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';

const EVENTS = 20_000_000;
const LOADS = Number(process.env.BENCH_VIEWER_LOADS ?? 30);
// Pages scrolled through after each load: 200 rows each.
const PAGES = Number(process.env.BENCH_VIEWER_PAGES ?? 20);
const PAGE_ROWS = 200;
const FIRST_ROWS_GOAL_MS = 1000;
const PAGE_GOAL_MS = 200;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const settings: ClickHouseSettings = {
  url: CLICKHOUSE_URL,
  database: process.env.BENCH_READ_DATABASE ?? 'bench_read',
  user: 'default',
  password: '',
};
const results = benchResults('viewer', ['BENCH_VIEWER_LOADS', 'BENCH_VIEWER_PAGES']);
const ms = (n: number) => fmt(n, 1);
const timing = (s: ReturnType<typeof summarize>) => `p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)} ms`;

interface Mark {
  name: string;
  startTime: number;
  detail: { rows: number } | null;
}

const marks = (page: Page) =>
  page.evaluate(() =>
    performance.getEntriesByType('mark').map((m) => ({
      name: m.name,
      startTime: m.startTime,
      detail: (m as unknown as { detail: { rows: number } | null }).detail,
    })),
  );

/** One load of the page and a scroll through PAGES pages: first rows, then each page's asked-to-shown time. */
async function loadAndScroll(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('.list li').first().waitFor();
    const first = (await marks(page)).find((m) => m.name === 'viewer:rows-shown')!;
    const pages: number[] = [];
    for (let n = 1; n <= PAGES; n++) {
      const want = (n + 1) * PAGE_ROWS;
      await page.locator('.list').evaluate((el) => (el.scrollTop = el.scrollHeight));
      await page.waitForFunction(
        (rows) =>
          performance
            .getEntriesByType('mark')
            .some(
              (m) =>
                m.name === 'viewer:rows-shown' &&
                (m as unknown as { detail: { rows: number } }).detail.rows >= rows,
            ),
        want,
      );
      const all: Mark[] = await marks(page);
      const asked = all.find((m) => m.name === 'viewer:page-asked' && m.detail?.rows === want - PAGE_ROWS)!;
      const shown = all.find((m) => m.name === 'viewer:rows-shown' && (m.detail?.rows ?? 0) >= want)!;
      pages.push(shown.startTime - asked.startTime);
    }
    return { firstRows: first.startTime, pages };
  } finally {
    await context.close();
  }
}

/** The page's reads from Node over one kept-alive connection: the first page, then PAGES more by cursor. */
async function apiReads(base: string, token: string) {
  const http = httpClient(base);
  try {
    const auth = { authorization: `Bearer ${token}` };
    const first = await http.request(`/api/v2/public/audit/events?limit=${PAGE_ROWS}`, { headers: auth });
    let cursor = (JSON.parse(first.body) as { page: { next_cursor: string } }).page.next_cursor;
    const pages: number[] = [];
    for (let n = 1; n <= PAGES; n++) {
      const res = await http.request(
        `/api/v2/public/audit/events?limit=${PAGE_ROWS}&cursor=${encodeURIComponent(cursor)}`,
        { headers: auth },
      );
      pages.push(res.totalMs);
      cursor = (JSON.parse(res.body) as { page: { next_cursor: string } }).page.next_cursor;
    }
    return { first: first.totalMs, pages };
  } finally {
    http.close();
  }
}

async function main() {
  console.log(`bench:viewer on ${settings.database} at ${new Date().toISOString()}`);
  await ensureDataset(settings, EVENTS, false, console.log);
  // The gateway serves the viewer's production build (docs/viewer.md "Budget").
  const built = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-viewer.ts'], {
    encoding: 'utf8',
  });
  results.row("the page's script and stylesheet", built.trim().replace(/^viewer: /, ''));
  const served = await datasetGateway('benchviewer', settings.database!);
  const { gateway } = served;
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    await gateway.start();
    const key = await served.mint(TARGET_TENANT, 'audit:read,viewer:issue');
    const made = await fetch(`${gateway.url}/api/v2/public/audit/viewer-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ttl_seconds: 4 * 3600 }),
    });
    const { url, token } = (await made.json()) as { url: string; token: string };
    // Warm-up: one load, as a browser that has the assets cached after its first visit.
    await loadAndScroll(browser, url);
    const firstRows: number[] = [];
    const pages: number[] = [];
    const apiFirst: number[] = [];
    const apiPages: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const run = await loadAndScroll(browser, url);
      firstRows.push(run.firstRows);
      pages.push(...run.pages);
      const api = await apiReads(gateway.url, token);
      apiFirst.push(api.first);
      apiPages.push(...api.pages);
    }
    const first = summarize(firstRows);
    const further = summarize(pages);
    results.row(
      'navigation → first rows shown (in the browser)',
      timing(first),
      goal(`p99 ≤ ${FIRST_ROWS_GOAL_MS} ms`, first.p99 <= FIRST_ROWS_GOAL_MS),
    );
    results.row('  baseline: the first page read from Node', timing(summarize(apiFirst)));
    results.row(
      `further page asked → its rows shown (${PAGES} pages of ${PAGE_ROWS} a load, to row ${(PAGES + 1) * PAGE_ROWS})`,
      timing(further),
      goal(`p99 ≤ ${PAGE_GOAL_MS} ms`, further.p99 <= PAGE_GOAL_MS),
    );
    results.row('  baseline: the same pages read from Node by cursor', timing(summarize(apiPages)));
  } finally {
    await browser.close();
    await served.stop();
  }
  results.save([
    `${fmt(EVENTS / 2)} events of ${TARGET_TENANT} among ${fmt(EVENTS)} (bench:read's dataset), newest first, no filter.`,
    `${LOADS} loads in a new browser context each after one warm-up (the assets cached by the browser, as after a first visit), each scrolled through ${PAGES} pages; Chromium ${CHROMIUM}, 1400 × 900.`,
  ]);
}

await main();
