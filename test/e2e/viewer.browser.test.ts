import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserFixture, screenshot, seriousAxeViolations, type BrowserPage } from '../support/browser.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

// The viewer in a real Chromium against the real stack (docs/viewer.md). Its events lie in a past window that the
// pages' deep links bound, so that the audit events of the tokens the tests make never shift a page under them.
const { names, ingest: ingestProc, ch } = pipelineFixture('viewer');
const gw = gatewayFixture(names);
const browser = browserFixture();
const FROM = Date.parse('2026-11-20T14:00:00Z');
const UNTIL = '2026-11-29T00:00:00.000Z';
const WINDOW = `until=${encodeURIComponent(UNTIL)}`;
const events = Array.from({ length: 2500 }, (_, i) => ({
  ...makeEvent(names.tenant, i, FROM + i * 60_000 - i),
  patient_id: i % 3 ? `p-${i % 40}` : '',
}));
const hostile = {
  ...makeEvent(names.tenant, 9999, FROM - 60_000),
  user_id: '<img src=x onerror=alert(1)>',
  resource_id: '<script>alert(2)</script>',
  details: { note: '<b onmouseover="alert(3)">bold?</b>', link: 'javascript:alert(4)' },
};
let issuer: string;
let db: pg.Pool;

beforeAll(async () => {
  issuer = await gw.mint(names.tenant, 'audit:read,viewer:issue');
  db = new pg.Pool({ connectionString: gw.databaseUrl(), max: 2 });
  for (let i = 0; i < events.length; i += 500) {
    expect((await ingest(ingestProc.url, names.ingestToken, events.slice(i, i + 500))).status).toBe(202);
  }
  expect((await ingest(ingestProc.url, names.ingestToken, [hostile])).status).toBe(202);
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) >= events.length + 1);
});
afterAll(() => db.end());

async function viewerToken(body: unknown = {}) {
  const res = await gw.send('POST', '/audit/viewer-tokens', issuer, body);
  expect(res.status, res.text).toBe(201);
  return JSON.parse(res.text) as { id: string; token: string; url: string };
}

/** The viewer opened at its token's URL, its search (the deep link) in `query`. */
async function open(query = WINDOW, body: unknown = {}): Promise<BrowserPage & { id: string }> {
  const made = await viewerToken(body);
  const opened = await browser.page();
  await opened.page.goto(made.url.replace('#', `?${query}#`));
  return { ...opened, id: made.id };
}

/** Waits for the list to have read what it asked for (or for an alert), and returns its status line. */
async function settled(page: Page): Promise<string> {
  return waitFor(
    'the list to settle',
    async () => {
      if ((await page.getByRole('alert').count()) > 0) return '';
      const status = (await page.locator('[role=status]').textContent()) ?? '';
      const busy = await page.locator('.list ul').getAttribute('aria-busy');
      return busy === 'false' && /event/.test(status) ? status : undefined;
    },
    { intervalMs: 50, timeoutMs: 60_000 },
  );
}

/** The event ids of the rows the list has drawn, by their place in the whole list (1-based). */
const drawnRows = (page: Page) =>
  page.locator('.list li').evaluateAll((items) =>
    items.map((li) => ({
      at: Number(li.getAttribute('aria-posinset')),
      id: li.querySelector('button')!.dataset.eventId!,
    })),
  );

/** The API's answer to the same search, with the key: the oracle, its first `wanted` ids. */
async function apiIds(query: string, wanted = 1000): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (;;) {
    const res = await gw.get(`/audit/events?${query}&limit=1000${cursor}`, issuer);
    expect(res.status, res.text).toBe(200);
    const page = JSON.parse(res.text) as {
      events: { event_id: string }[];
      page: { next_cursor: string | null };
    };
    ids.push(...page.events.map((e) => e.event_id));
    if (!page.page.next_cursor || ids.length >= wanted) return ids;
    cursor = `&cursor=${encodeURIComponent(page.page.next_cursor)}`;
  }
}

async function expectClean(opened: BrowserPage) {
  expect(await seriousAxeViolations(opened.page)).toEqual([]);
  expect(opened.problems).toEqual([]);
  expect(opened.dialogs).toEqual([]);
}

describe('the viewer', () => {
  it('searches with each filter, keeps the search in its URL, and shows what the API answers', async () => {
    const opened = await open();
    const { page } = opened;
    await settled(page);
    expect(new URL(page.url()).hash).toBe('');
    const sample = events[1234]!;
    const cases: [label: string, name: string, value: string, set: () => Promise<void>][] = [
      [
        'Action',
        'action',
        sample.action,
        () => page.getByLabel('Action', { exact: true }).fill(sample.action),
      ],
      [
        'Action starts with',
        'action_prefix',
        'phi.',
        () => page.getByLabel('Action starts with').fill('phi.'),
      ],
      ['User', 'user_id', sample.user_id, () => page.getByLabel('User').fill(sample.user_id)],
      ['Resource type', 'resource_type', 'upload', () => page.getByLabel('Resource type').fill('upload')],
      [
        'Resource id',
        'resource_id',
        sample.resource_id,
        () => page.getByLabel('Resource id').fill(sample.resource_id),
      ],
      ['Source IP', 'source_ip', sample.source_ip, () => page.getByLabel('Source IP').fill(sample.source_ip)],
      ['Patient', 'patient_id', sample.patient_id, () => page.getByLabel('Patient').fill(sample.patient_id)],
      ['PHI', 'phi_involved', 'false', async () => void (await page.getByLabel('PHI').selectOption('false'))],
      [
        'Outcome',
        'success',
        'false',
        async () => void (await page.getByLabel('Outcome').selectOption('false')),
      ],
    ];
    for (const [label, name, value, set] of cases) {
      await page.getByRole('button', { name: 'Clear' }).click();
      await settled(page);
      await set();
      await page.getByRole('button', { name: 'Search' }).click();
      const status = await settled(page);
      const url = new URL(page.url());
      expect(url.searchParams.get(name), label).toBe(value);
      const query = `${name}=${encodeURIComponent(value)}`;
      const expected = await apiIds(query);
      const drawn = await drawnRows(page);
      expect(drawn.length, label).toBeGreaterThan(0);
      expect(
        drawn.map((r) => r.id),
        label,
      ).toEqual(expected.slice(0, drawn.length));
      if (expected.length < 200) expect(status, label).toContain(`${expected.length} event`);
    }
    // A time range, typed in UTC: the times in the URL are the API's.
    await page.getByRole('button', { name: 'Clear' }).click();
    await settled(page);
    await page.getByLabel('Times in UTC').check();
    await page.getByLabel('From').fill('2026-11-21T00:00:00');
    await page.getByLabel('Until (exclusive)').fill('2026-11-21T06:00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await settled(page);
    const url = new URL(page.url());
    expect(url.searchParams.get('since')).toBe('2026-11-21T00:00:00.000Z');
    expect(url.searchParams.get('until')).toBe('2026-11-21T06:00:00.000Z');
    const timeQuery = url.search.slice(1);
    expect((await drawnRows(page)).map((r) => r.id)).toEqual(
      (await apiIds(timeQuery)).slice(0, (await drawnRows(page)).length),
    );
    // The search part of the address is the deep link: another viewer link given it shows the same search.
    const again = await open(new URL(page.url()).search.slice(1));
    await settled(again.page);
    expect(await drawnRows(again.page)).toEqual(await drawnRows(page));
    await screenshot(page, 'search');
    await expectClean(opened);
    await expectClean(again);
  });

  it('scrolls 2,000 rows deep, reading pages as it goes and drawing only the rows in view', async () => {
    const opened = await open();
    const { page } = opened;
    await settled(page);
    const list = page.locator('.list');
    let loaded = 0;
    while (loaded < 2000) {
      await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
      loaded = await waitFor('the next page', async () => {
        const n = Number((await page.locator('.list li').last().getAttribute('aria-posinset')) ?? 0);
        return n > loaded ? n : undefined;
      });
    }
    const drawn = await drawnRows(page);
    expect(drawn.length).toBeLessThan(100);
    const oracle = await apiIds(WINDOW, 3000);
    for (const row of drawn) expect(row.id, `row ${row.at}`).toBe(oracle[row.at - 1]);
    expect(Math.max(...drawn.map((r) => r.at))).toBeGreaterThanOrEqual(2000);
    await screenshot(page, 'scrolled');
    await expectClean(opened);
  });

  it("shows an event's every field, its details indented, in local time or UTC, by keyboard", async () => {
    const opened = await open(`resource_id=${encodeURIComponent(events[42]!.resource_id)}&${WINDOW}`);
    const { page } = opened;
    await settled(page);
    await page.locator('.list').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const detail = page.getByRole('region', { name: new RegExp(events[42]!.action) });
    await expect.poll(() => detail.isVisible()).toBe(true);
    const text = (await detail.textContent()) ?? '';
    const e = events[42]!;
    for (const value of [e.event_id, e.user_id, e.user_role, e.resource_type, e.resource_id, e.source_ip]) {
      expect(text).toContain(value);
    }
    expect(await detail.locator('pre').last().textContent()).toBe(JSON.stringify(e.details, null, 2));
    // 2026-11-20 is in New York's standard time: five hours behind UTC.
    const local = new Date(Date.parse(e.timestamp) - 5 * 3600_000)
      .toISOString()
      .slice(0, 19)
      .replace('T', ' ');
    expect(await detail.locator('time').textContent()).toContain(`${local}`);
    expect(await detail.locator('time').textContent()).toContain('-05:00');
    await screenshot(page, 'detail');
    await expectClean(opened);
    await page.getByLabel('Times in UTC').check();
    expect(await detail.locator('time').textContent()).toBe(
      `${e.timestamp.slice(0, 23).replace('T', ' ')} UTC`,
    );
    await detail.getByRole('heading').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => detail.count()).toBe(0);
    expect(await page.locator(':focus').getAttribute('data-event-id')).toBe(e.event_id);
  });

  it("shows an event's script and markup as text", async () => {
    const opened = await open(`resource_id=${encodeURIComponent(hostile.resource_id)}&${WINDOW}`);
    const { page } = opened;
    expect(await settled(page)).toContain('1 event');
    const row = page.locator('.list li button').first();
    expect(await row.textContent()).toContain(hostile.user_id);
    expect(await row.textContent()).toContain(hostile.resource_id);
    await row.click();
    const detail = page.locator('.detail');
    expect(await detail.locator('pre').last().textContent()).toBe(JSON.stringify(hostile.details, null, 2));
    expect(await page.locator('.list img, .detail img, .detail b').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    await detail.locator('pre').last().hover();
    await screenshot(page, 'markup-as-text');
    await expectClean(opened);
  });

  it('holds a narrowed link to its filter: shown fixed, and a wider deep link refused', async () => {
    const user = events[5]!.user_id;
    const opened = await open(WINDOW, { narrowed_to: { user_id: user } });
    const { page } = opened;
    await settled(page);
    const field = page.getByLabel('User (fixed by this link)');
    expect(await field.isDisabled()).toBe(true);
    expect(await field.inputValue()).toBe(user);
    const expected = await apiIds(`user_id=${user}&${WINDOW}`);
    expect((await drawnRows(page)).map((r) => r.id)).toEqual(
      expected.slice(0, (await drawnRows(page)).length),
    );
    await expect
      .poll(() => page.locator('[role=status]').textContent())
      .toContain(`${expected.length} events`);
    await screenshot(page, 'narrowed');
    await expectClean(opened);
    const wider = await open(`user_id=${events[6]!.user_id}&${WINDOW}`, { narrowed_to: { user_id: user } });
    await settled(wider.page);
    expect(await wider.page.getByRole('alert').textContent()).toBe(
      `This viewer token shows only events with user_id = "${user}".`,
    );
    expect(await wider.page.locator('.list li').count()).toBe(0);
    await expectClean(wider);
  });

  it('says when its link has expired, and when it has no token', async () => {
    const made = await viewerToken();
    await db.query(
      "UPDATE viewer_tokens SET created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' WHERE id = $1",
      [made.id],
    );
    const expired = await browser.page();
    await expired.page.goto(made.url);
    expect(await expired.page.getByRole('alert').textContent()).toBe(
      'This viewer link has expired. Ask for a new one.',
    );
    await screenshot(expired.page, 'expired');
    await expectClean(expired);
    const bare = await browser.page();
    await bare.page.goto(`${gw.url()}/viewer/t/${made.id}`);
    expect(await bare.page.getByRole('alert').textContent()).toContain('needs a viewer link');
    await expectClean(bare);
  });

  it("says each event in its tenant's words, from the template of its action or prefix, as text", async () => {
    const admin = await gw.mint(names.tenant, 'audit:read,templates:write');
    const templates = {
      'phi.*': '{user_id} touched {resource_type} {resource_id} ({outcome})',
      'phi.read': '<b>{user_id}</b> read {fields_accessed} of {resource_id}, seq {details.seq}',
    };
    for (const [selector, template] of Object.entries(templates)) {
      const res = await gw.send('PUT', `/audit/display-templates/${selector}`, admin, { template });
      expect(res.status, res.text).toBe(200);
    }
    const read = events[10]!;
    const query = events[11]!;
    const opened = await open(`action_prefix=phi.&${WINDOW}`);
    const { page } = opened;
    await settled(page);
    const rowOf = (id: string) => page.locator(`.list button[data-event-id="${id}"] .what`);
    const outcome = (e: typeof read) => (e.success ? 'succeeded' : 'was denied or failed');
    await page.getByLabel('Resource id').fill(read.resource_id);
    await page.getByRole('button', { name: 'Search' }).click();
    await settled(page);
    expect(await rowOf(read.event_id).textContent()).toBe(
      `<b>${read.user_id}</b> read ${read.fields_accessed.join(', ')} of ${read.resource_id}, seq ${read.details.seq}`,
    );
    expect(await page.locator('.list b').count()).toBe(0);
    await page.getByLabel('Resource id').fill(query.resource_id);
    await page.getByRole('button', { name: 'Search' }).click();
    await settled(page);
    expect(await rowOf(query.event_id).textContent()).toBe(
      `${query.user_id} touched ${query.resource_type} ${query.resource_id} (${outcome(query)})`,
    );
    // The raw fields are one click away, the sentence above them.
    await page.locator('.list li button').first().click();
    expect(await page.locator('.detail .sentence').textContent()).toContain('(template phi.*)');
    expect(await page.locator('.detail dl').textContent()).toContain(query.user_role);
    await page.getByRole('button', { name: 'Clear' }).click();
    await settled(page);
    await screenshot(page, 'templates');
    await expectClean(opened);
  });

  it('may be framed by the origins its token names, and by no other page', async () => {
    // Two host pages of the test's own on 127.0.0.1, each with the viewer in an iframe: the browser enforces
    // frame-ancestors, not the test.
    const host = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>host</title><iframe title="audit" src="${decodeURIComponent(req.url!.slice(1))}"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    try {
      const allowed = await viewerToken({ frame_origins: [origin] });
      const refused = await viewerToken({ frame_origins: ['https://elsewhere.example'] });
      const framed = async (url: string) => {
        const opened = await browser.page();
        await opened.page.goto(`${origin}/${encodeURIComponent(url.replace('#', `?${WINDOW}#`))}`);
        const frame = opened.page.frameLocator('iframe');
        return { opened, rows: frame.locator('.list li') };
      };
      const shown = await framed(allowed.url);
      await shown.rows.first().waitFor();
      expect(await shown.rows.count()).toBeGreaterThan(0);
      const blocked = await framed(refused.url);
      await expect.poll(() => blocked.opened.problems.join('\n')).toContain('frame-ancestors');
      expect(await blocked.rows.count()).toBe(0);
    } finally {
      await new Promise((resolve) => host.close(resolve));
    }
  });
});
