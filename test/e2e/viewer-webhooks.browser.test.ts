import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserFixture, screenshot, seriousAxeViolations } from '../support/browser.js';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver } from '../support/webhook-receiver.js';

// Webhooks in the viewer (docs/viewer.md "Webhooks"): an endpoint's attempts, a test send, a secret's rotation and
// a replay, done from the page against the real dispatcher, delivered to a receiver of the test's on 127.0.0.1.
const { names, ingest: ingestProc } = pipelineFixture('viewhook');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
dispatcherFixture(names, gw, { WEBHOOK_REPLAY_SETTLE_MS: '0' });
const browser = browserFixture();
const receiver = await webhookReceiver(() => 204);
afterAll(() => receiver.close());
const events = Array.from({ length: 5 }, (_, i) => ({ ...makeEvent(names.tenant, i), action: 'phi.read' }));
let issuer = '';
let secret = '';
let ingestedFrom = 0;

beforeAll(async () => {
  issuer = await gw.mint(names.tenant, 'audit:read,webhooks:write,viewer:issue');
  const created = await gw.send('POST', '/audit/webhooks', issuer, {
    url: receiver.url('/siem'),
    event_filter: ['phi.'],
    description: 'SIEM',
  });
  expect(created.status, created.text).toBe(201);
  secret = (JSON.parse(created.text) as { secret: string }).secret;
  ingestedFrom = Date.now() - 1000;
  expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
  await waitFor('the first deliveries', async () =>
    events.every((e) => receiver.at('/siem').some((r) => r.id === e.event_id)) ? true : undefined,
  );
});

async function webhooksPage(scopes: string[]) {
  const res = await gw.send('POST', '/audit/viewer-tokens', issuer, { scopes });
  expect(res.status, res.text).toBe(201);
  const opened = await browser.page();
  await opened.page.goto((JSON.parse(res.text) as { url: string }).url);
  await opened.page.getByRole('button', { name: 'Webhooks' }).click();
  const card = opened.page.getByRole('region', { name: 'SIEM' });
  await card.waitFor();
  return { ...opened, card };
}

describe('webhooks in the viewer', () => {
  it("shows an endpoint's delivery attempts, sends a test, rotates the secret and replays a window", async () => {
    const opened = await webhooksPage(['audit:read', 'webhooks:write']);
    const { page, card } = opened;
    expect(new URL(page.url()).searchParams.get('view')).toBe('webhooks');
    expect(await card.locator('dd').first().textContent()).toBe(receiver.url('/siem'));

    await card.getByRole('button', { name: 'Delivery attempts' }).click();
    const rows = card.locator('table.attempts tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(events.length);
    expect(await rows.first().textContent()).toContain('succeeded');
    expect(await rows.first().textContent()).toContain('204');

    const before = receiver.at('/siem').length;
    await card.getByRole('button', { name: 'Send a test' }).click();
    await expect
      .poll(() => card.locator('.note').textContent())
      .toContain('Test delivered: the receiver answered 204');
    expect(receiver.at('/siem').length).toBe(before + 1);

    await card.getByRole('button', { name: 'Rotate the secret' }).click();
    const shown = card.locator('.secret code');
    await shown.waitFor();
    const rotated = (await shown.textContent())!;
    expect(rotated).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated).not.toBe(secret);
    const listed = JSON.parse((await gw.get('/audit/webhooks', issuer)).text) as {
      endpoints: { previous_secret_expires_at: string | null }[];
    };
    expect(listed.endpoints[0]!.previous_secret_expires_at).not.toBeNull();
    const later = { ...makeEvent(names.tenant, 99), action: 'phi.read' };
    expect((await ingest(ingestProc.url, names.ingestToken, [later])).status).toBe(202);
    const delivered = await waitFor('the next delivery', async () =>
      receiver.at('/siem').find((r) => r.id === later.event_id),
    );
    expect(independentlyVerified(delivered, rotated)).toBe(true);

    await page.getByLabel('Times in UTC').check();
    await card.getByLabel('Replay from').fill(new Date(ingestedFrom).toISOString().slice(0, 19));
    await card.getByRole('button', { name: 'Replay' }).click();
    await expect
      .poll(() => card.locator('.note').last().textContent(), { timeout: 60_000 })
      .toMatch(/Replay succeeded: \d+ events read, 6 deliveries queued/);
    await waitFor('every event again', async () =>
      [...events, later].every((e) => receiver.at('/siem').filter((r) => r.id === e.event_id).length >= 2)
        ? true
        : undefined,
    );
    await screenshot(page, 'webhooks');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(opened.problems).toEqual([]);
  });

  it('lets a reader see the endpoints and their attempts, and change nothing', async () => {
    const opened = await webhooksPage(['audit:read']);
    const { card } = opened;
    expect(await card.getByRole('button').allTextContents()).toEqual(['Delivery attempts']);
    expect(await card.locator('form.replay').count()).toBe(0);
    expect(await seriousAxeViolations(opened.page)).toEqual([]);
  });
});
