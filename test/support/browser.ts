import { AxeBuilder } from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** Debian's Chromium, which scripts/ensure-chromium.sh installs and names (docs/testing.md "Browser"). */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the tests' pictures of each page go; docs/viewer.md shows those of a run with VIEWER_SCREENSHOTS=docs/viewer. */
const SCREENSHOTS = process.env.VIEWER_SCREENSHOTS ?? '.data/test-results/screenshots';

export interface BrowserPage {
  page: Page;
  /** Every Content-Security-Policy violation and uncaught error the page reported. */
  problems: string[];
  /** Every dialog (alert, confirm) the page opened: a script of an event's text would. */
  dialogs: string[];
}

/** One Chromium for the file's tests; each page in a context of its own (its own storage), in New York time. */
export function browserFixture() {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH });
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
  });
  return {
    async page(): Promise<BrowserPage> {
      const context = await browser!.newContext({
        timezoneId: 'America/New_York',
        locale: 'en-US',
        viewport: { width: 1400, height: 900 },
      });
      contexts.push(context);
      const page = await context.newPage();
      const problems: string[] = [];
      const dialogs: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy|Trusted Type/i.test(m.text()))
          problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      return { page, problems, dialogs };
    },
  };
}

/** axe-core's serious and critical findings against WCAG 2.x A and AA, as `rule: target` lines. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png` });
}
