import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserFixture, screenshot, seriousAxeViolations } from '../support/browser.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { exportDir, exporterService } from '../support/stack.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

// Export jobs from the viewer (docs/viewer.md "Export"): started with the page's search, followed, downloaded with
// the token, read back by a CSV reader nobody here wrote, and held to a narrowed token's filter.
const { names, ingest: ingestProc, ch } = pipelineFixture('viewexp');
// The exporter writes the files where the gateway serves them from.
const gw = gatewayFixture(names, { env: { EXPORT_DIR: exportDir(names) } });
const browser = browserFixture();
let exporter: ReturnType<typeof exporterService> | undefined;
const FROM = Date.now() - 7 * 86_400_000;
const events = Array.from({ length: 300 }, (_, i) => makeEvent(names.tenant, i, FROM + i * 1000));
const SEARCH = `since=${encodeURIComponent(new Date(FROM - 1000).toISOString())}&until=${encodeURIComponent(new Date(FROM + 86_400_000).toISOString())}`;
let issuer = '';

beforeAll(async () => {
  exporter = exporterService(names, gw.databaseUrl());
  await exporter.start();
  issuer = await gw.mint(names.tenant, 'audit:read,audit:export,viewer:issue');
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) >= events.length);
});
afterAll(async () => {
  await exporter?.stop();
  rmSync(exportDir(names), { recursive: true, force: true });
});

async function openWith(query: string, body: Record<string, unknown>) {
  const res = await gw.send('POST', '/audit/viewer-tokens', issuer, {
    scopes: ['audit:read', 'audit:export'],
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  const made = JSON.parse(res.text) as { url: string; token: string };
  const opened = await browser.page();
  await opened.page.goto(made.url.replace('#', `?${query}#`));
  await opened.page.locator('.list li').first().waitFor();
  return { ...opened, token: made.token };
}

/** Starts the page's export in CSV, waits for its file and downloads it: the rows' event ids, in file order. */
async function exported(page: import('playwright-core').Page): Promise<string[]> {
  await page.getByLabel('Format').selectOption('csv');
  await page.getByRole('button', { name: 'Start export' }).click();
  const status = page.locator('.export .job');
  await expect.poll(() => status.textContent(), { timeout: 60_000 }).toContain('Export ready');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^audit-export-[0-9a-f-]{36}\.csv\.gz$/);
  const rows = parse(gunzipSync(await readFile((await download.path())!)), { columns: true }) as {
    event_id: string;
  }[];
  return rows.map((r) => r.event_id);
}

const apiIds = async (query: string) =>
  (
    JSON.parse((await gw.get(`/audit/events?${query}&limit=1000`, issuer)).text) as {
      events: { event_id: string }[];
    }
  ).events.map((e) => e.event_id);

describe('exports from the viewer', () => {
  it('starts a job with the search, follows it, and downloads its file', async () => {
    const query = `${SEARCH}&action_prefix=phi.&success=true`;
    const opened = await openWith(query, {});
    const ids = await exported(opened.page);
    expect(ids).toEqual(await apiIds(query));
    expect(ids.length).toBeGreaterThan(100);
    await screenshot(opened.page, 'export');
    expect(await seriousAxeViolations(opened.page)).toEqual([]);
    expect(opened.problems).toEqual([]);
  });

  it("holds a narrowed link's export to its filter, and its token to jobs inside it", async () => {
    const user = events[7]!.user_id;
    const opened = await openWith(SEARCH, { narrowed_to: { user_id: user } });
    const ids = await exported(opened.page);
    expect(ids).toEqual(await apiIds(`${SEARCH}&user_id=${user}`));
    // A job of the whole tenant is no job of the narrowed token's, and neither is the list of jobs.
    const wide = await gw.send('POST', '/audit/exports', issuer, {
      since: new Date(FROM - 1000).toISOString(),
    });
    const { id } = JSON.parse(wide.text) as { id: string };
    expect((await gw.get(`/audit/exports/${id}`, opened.token)).status).toBe(404);
    expect((await gw.get(`/audit/exports/${id}/download`, opened.token)).status).toBe(404);
    expect((await gw.get('/audit/exports', opened.token)).status).toBe(403);
    const widened = await gw.send('POST', '/audit/exports', opened.token, {
      since: new Date(FROM - 1000).toISOString(),
      user_id: events[8]!.user_id,
      format: 'ndjson',
    });
    expect(widened.status).toBe(403);
    expect(opened.problems).toEqual([]);
  });
});
