import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { requireSystem } from '@agate/testing';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHROMIUM_REQUIREMENT } from '../../../vitest.setup-chromium.js';
import { startWebChat, type WebChat } from './server.js';

// The run's one Chromium, started by vitest.setup-chromium.ts, which alone decides whether there
// is one ('' when not): a second look for a Chromium here could disagree with it.
const CHROMIUM_ENDPOINT = inject('chromiumEndpoint');
const ok = requireSystem({
  tests: 'web-chat browser tests',
  ...CHROMIUM_REQUIREMENT,
  probe: () => CHROMIUM_ENDPOINT !== '',
});

const SCREENSHOTS = join(import.meta.dirname, '../../../docs/images');

describe.skipIf(!ok)('examples/web-chat in a real browser', () => {
  let chat: WebChat;
  let chromiumBrowser: Browser;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    chat = await startWebChat();
    // The run's one Chromium (vitest.setup-chromium.ts), in a context of this file's own.
    chromiumBrowser = await chromium.connect(CHROMIUM_ENDPOINT);
    browser = await chromiumBrowser.newContext({ viewport: { width: 900, height: 760 } });
    page = await browser.newPage();
    page.on('request', (request) => {
      if (!request.url().startsWith(chat.url)) throw new Error(`external request ${request.url()}`);
    });
    await page.goto(chat.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await chromiumBrowser?.close();
    await chat?.close();
  });

  it('sends a message, shows the refusal banner, approves the checkpoint by clicking, completes', async () => {
    await page.fill('input[aria-label="message"]', 'Fix add() in math.js');
    await page.click('button[type="submit"]');

    // The gate refused the premature "done": a banner, from a data-agate-gate part.
    const refusal = page.locator('.refusal');
    await refusal.waitFor({ timeout: 30_000 });
    expect(await refusal.textContent()).toContain('Refused by verification');

    // The run ends at the checkpoint: approve / reject buttons, from a data-agate-approval part.
    const approve = page.locator('.approval button', { hasText: 'Approve' });
    await approve.waitFor({ timeout: 30_000 });
    expect(await page.locator('.run-status').last().getAttribute('data-status')).toBe(
      'awaiting-approval',
    );
    expect(await page.locator('.approval').textContent()).toContain(
      'Fixed add() in math.js; 3 tests pass.',
    );
    await expect.poll(() => approve.isEnabled()).toBe(true);
    if (process.env.AGATE_WRITE_SCREENSHOTS === '1') {
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'web-chat.png') });
    }
    await approve.click();

    // The next run takes the decision and completes; the chat's session in the store agrees.
    await page.locator('.run-status[data-status="completed"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.message.assistant').last().textContent()).toContain(
      'The fix is reviewed and approved',
    );
    expect(await page.locator('.decided').textContent()).toContain(
      'review approved by web reviewer',
    );
    const sessions = await chat.store.list();
    expect(sessions).toHaveLength(1);
    const stored = await chat.store.load(sessions[0]?.id as string);
    expect(stored?.state).toMatchObject({ status: 'completed' });
  }, 90_000);
});
