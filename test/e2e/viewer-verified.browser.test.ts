import { beforeAll, describe, expect, it } from 'vitest';
import { browserFixture, screenshot, seriousAxeViolations } from '../support/browser.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { notaryFixture } from '../support/notary-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { changeEverywhere } from '../support/tampering.js';
import { waitFor } from '../support/wait-for.js';

// The verified mark (docs/viewer.md "Verified mark"): each event's inclusion proof and its checkpoint's signature
// checked in Chromium with WebCrypto, against the real trees, notary and keys; then a row changed in ClickHouse.
const { names, ingest: ingestProc, databaseUrl, ch } = pipelineFixture('viewver', {}, { trees: true });
const gw = gatewayFixture(names, { databaseUrl });
const browser = browserFixture();
notaryFixture(names, () => gw.databaseUrl());
const events = Array.from({ length: 30 }, (_, i) => makeEvent(names.tenant, i));
const WINDOW = `until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&action_prefix=phi.`;
let issuer = '';

beforeAll(async () => {
  issuer = await gw.mint(names.tenant, 'audit:read,viewer:issue');
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  // Every event in a signed checkpoint: the last one's proof is there.
  await waitFor('a checkpoint of every event', async () => {
    const res = await gw.get(`/audit/integrity/proofs/inclusion?event_id=${events.at(-1)!.event_id}`, issuer);
    return res.status === 200;
  });
});

async function open(query: string, body: unknown = {}) {
  const res = await gw.send('POST', '/audit/viewer-tokens', issuer, body);
  expect(res.status, res.text).toBe(201);
  const { url } = JSON.parse(res.text) as { url: string };
  const opened = await browser.page();
  await opened.page.goto(url.replace('#', `?${query}#`));
  await opened.page.locator('.list li').first().waitFor();
  return opened;
}

const markOf = (page: import('playwright-core').Page) => page.locator('.detail .mark');

describe('the verified mark', () => {
  it('checks an event in the browser against the signed checkpoint, and each row in view on request', async () => {
    const opened = await open(WINDOW);
    const { page } = opened;
    await page.locator('.list li button').first().click();
    await expect.poll(() => markOf(page).textContent(), { timeout: 30_000 }).toContain('✓ Verified');
    expect(await markOf(page).textContent()).toMatch(
      /entry \d+ of the tenant's trail of \d+ events that key audit\.example\.test/,
    );
    await screenshot(page, 'verified');
    await page.getByRole('button', { name: 'Verify the rows in view' }).click();
    const rows = page.locator('.list li');
    const drawn = await rows.count();
    await expect
      .poll(() => page.locator('.list .verdict.ok').count(), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(Math.min(drawn, 15));
    expect(await page.locator('.list .verdict.denied').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(opened.problems).toEqual([]);
  });

  it('says an event is not verified, and why, once its row was changed in ClickHouse', async () => {
    const target = events.find((e) => e.action.startsWith('phi.'))!;
    await changeEverywhere(ch, names.tenant, target.event_id, "user_id = 'mallory'");
    const opened = await open(`resource_id=${encodeURIComponent(target.resource_id)}&${WINDOW}`);
    const { page } = opened;
    expect(await page.locator('.list li button').first().textContent()).toContain('mallory');
    await page.locator('.list li button').first().click();
    await expect.poll(() => markOf(page).textContent(), { timeout: 30_000 }).toContain('✗ Not verified');
    expect(await markOf(page).textContent()).toContain('changed');
    expect(await page.locator('.list .verdict.denied').count()).toBe(1);
    await screenshot(page, 'not-verified');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(opened.problems).toEqual([]);
  });

  it('checks a narrowed link’s events too, and no proof of an event outside its filter', async () => {
    const target = events[10]!;
    const opened = await open(WINDOW, { narrowed_to: { user_id: target.user_id } });
    await opened.page.locator('.list li button').first().click();
    await expect.poll(() => markOf(opened.page).textContent(), { timeout: 30_000 }).toContain('✓ Verified');
    const token = (
      await gw.send('POST', '/audit/viewer-tokens', issuer, { narrowed_to: { user_id: target.user_id } })
    ).text;
    const { token: bearer } = JSON.parse(token) as { token: string };
    const outside = events.find((e) => e.user_id !== target.user_id)!;
    expect(
      (await gw.get(`/audit/integrity/proofs/inclusion?event_id=${outside.event_id}`, bearer)).status,
    ).toBe(404);
    expect(
      (await gw.get(`/audit/integrity/proofs/inclusion?event_id=${target.event_id}`, bearer)).status,
    ).toBe(200);
    expect((await gw.get('/audit/integrity/checkpoints', bearer)).status).toBe(403);
  });
});
