import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Checkpoint,
  createFileStore,
  createSession,
  type SessionStore,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { requireSystem, scriptedModel } from '@agate/testing';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import ApprovalAgent from '../__fixtures__/approval-agent.js';
import { type Studio, startStudio } from './server.js';

const CHROMIUM = '/usr/bin/chromium';
const ok = requireSystem({
  tests: 'studio browser tests',
  needs: 'Chromium (/usr/bin/chromium)',
  enable: 'apt-get install -y chromium',
  command: CHROMIUM,
});

/** Where screenshots for docs/web.md are written when AGATE_WRITE_SCREENSHOTS=1. */
const SCREENSHOTS = join(import.meta.dirname, '../../../../docs/images');

function Notes(props: { task?: boolean }) {
  return (
    <>
      <System>You save notes, one per tick.</System>
      <User>Save notes.</User>
      <Timeline />
      <Tool
        name="save_note"
        description="Save a note"
        input={z.object({ text: z.string() })}
        execute={({ text }) => `Saved: ${text}`}
      />
      {props.task && <Checkpoint id="T-1" task="Save the first note" />}
    </>
  );
}

async function longSession(store: SessionStore, ticks: number): Promise<void> {
  let n = 0;
  const session = createSession(<Notes />, {
    id: 'long-run',
    store,
    tickLog: { maxTicks: ticks },
    maxTicks: ticks,
    maxTimelineMessages: 200,
    model: scriptedModel(
      [() => ({ toolCalls: [{ toolName: 'save_note', input: { text: `note ${++n}` } }] })],
      {
        whenExhausted: 'repeat-last',
      },
    ),
  });
  await session.run();
  await store.save(session.snapshot());
}

describe.skipIf(!ok)('agate studio in a real browser', () => {
  let dir: string;
  let store: SessionStore;
  let studio: Studio;
  let browser: BrowserContext;
  let page: Page;
  const pair = generateKeyPairSync('ed25519');
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-studio-'));
    store = createFileStore(join(dir, 'sessions'));
    await longSession(store, 1_000);
    const gated = createSession(<Notes task />, {
      id: 'review-me',
      store,
      tickLog: true,
      approvalPublicKey: publicKey,
      model: scriptedModel([
        { toolCalls: [{ toolName: 'save_note', input: { text: 'hello' } }] },
        {
          toolCalls: [
            { toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'Saved hello.' } },
          ],
        },
      ]),
    });
    expect((await gated.run()).status).toBe('awaiting-approval');
    const holding = createSession(<ApprovalAgent />, {
      id: 'hold-me',
      store,
      tickLog: true,
      approvalPublicKey: publicKey,
      model: scriptedModel([
        {
          toolCalls: [
            // Untrusted input as the page must show it: as text, never as markup.
            { toolCallId: 'c-drop', toolName: 'drop_table', input: { table: '<b>logs</b>' } },
          ],
        },
      ]),
    });
    expect((await holding.run()).status).toBe('awaiting-approval');
    studio = await startStudio({ store, privateKey });
    // A fresh profile in the temp dir (persistent context: playwright owns --user-data-dir).
    browser = await chromium.launchPersistentContext(join(dir, 'chromium'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 760 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    // No request may leave 127.0.0.1: the page has no external assets.
    page.on('request', (request) => {
      if (!request.url().startsWith(studio.url))
        throw new Error(`external request ${request.url()}`);
    });
    await page.goto(studio.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists a 1,000-tick session in under 1 s and shows one tick’s diff in under 100 ms', async () => {
    await page.click('.session[data-id="long-run"]');
    await page.waitForSelector('body[data-listed-ticks="1000"]');
    const list = await page.evaluate(
      () => (window as unknown as { studioTimings: { list: number } }).studioTimings.list,
    );
    expect(await page.locator('tr.tick').count()).toBe(1_000);
    expect(list).toBeLessThan(1_000);

    // Three clicks, judged on the median: one scheduler hiccup on a shared machine is not what
    // a person feels. Tick 500 last, whose diff is checked below.
    const timings: number[] = [];
    for (const n of [300, 700, 500]) {
      await page.click(`tr.tick[data-tick="${n}"]`);
      await page.waitForSelector(`body[data-shown-tick="${n}"]`);
      timings.push(
        await page.evaluate(
          () => (window as unknown as { studioTimings: { tick: number } }).studioTimings.tick,
        ),
      );
    }
    const tick = [...timings].sort((a, b) => a - b)[1]!;
    expect(tick).toBeLessThan(100);
    // The diff against tick 499: this tick's new call and result added, nothing else changed.
    const added = await page.locator('#diff .add').allTextContents();
    expect(added.join('\n')).toContain('save_note({"text":"note 499"})');
    expect(added.join('\n')).toContain('Saved: note 499');
    expect(await page.locator('#diff .gap').count()).toBeGreaterThan(0);
    expect(await page.locator('#reply').textContent()).toBe('(no text)');
    expect(await page.locator('#calls').textContent()).toContain('note 500');
    if (process.env.AGATE_WRITE_SCREENSHOTS === '1') {
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'studio-diff.png') });
    }
    console.info(
      `studio: 1,000 ticks listed in ${list.toFixed(0)} ms; a tick's diff shown in ${tick.toFixed(0)} ms (median of ${timings.map((t) => t.toFixed(0)).join(', ')})`,
    );
  });

  it('approves a pending checkpoint by clicking, signed with the key the server holds', async () => {
    await page.click('.session[data-id="review-me"]');
    await page.click('tr.tick[data-tick="2"]');
    await page.waitForSelector('#pending [data-checkpoint="T-1"]');
    expect(await page.locator('#decisions').textContent()).toContain('checkpoint:pending');
    if (process.env.AGATE_WRITE_SCREENSHOTS === '1') {
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'studio.png') });
    }
    await page.fill('#by', 'reviewer');
    await page.click('#pending button.approve');
    await page.waitForFunction(() =>
      document.getElementById('status')?.textContent?.startsWith('Approved'),
    );
    expect(await page.locator('#status').textContent()).toMatch(
      /Approved T-1 \(ledger #\d+, signed\)/,
    );
    // Decided: the page no longer offers it (the run takes the decision when it goes on).
    await page.waitForSelector('#pending', { state: 'detached' });
    expect(await page.locator('.session[data-id="review-me"]').textContent()).not.toContain(
      'awaiting approval',
    );

    // The run takes the decision: verified with the public key, it goes on.
    const stored = await store.load('review-me');
    const resumed = createSession(<Notes task />, {
      store,
      snapshot: stored!,
      approvalPublicKey: publicKey,
      model: scriptedModel(['Both notes saved.']),
    });
    expect((await resumed.run()).status).toBe('completed');
  });

  it('denies a held tool call by clicking, with the reason the model will read, signed', async () => {
    await page.click('.session[data-id="hold-me"]');
    await page.waitForSelector('#pending [data-tool-call="c-drop"]');
    expect(await page.locator('.session[data-id="hold-me"]').textContent()).toContain(
      'awaiting approval',
    );
    const row = page.locator('#pending [data-tool-call="c-drop"]');
    expect(await row.locator('b').textContent()).toBe('drop_table');
    expect(await row.locator('.call-input').textContent()).toBe('{"table":"<b>logs</b>"}');
    expect(await row.locator('.call-input b').count()).toBe(0);
    await page.fill('#by', 'dba');
    await page.click('#pending [data-tool-call="c-drop"] button.deny');
    // No reason: refused by the core (a denial tells the model why), nothing recorded.
    await page.waitForFunction(() =>
      /needs a reason/.test(document.getElementById('status')?.textContent ?? ''),
    );
    await page.fill('#feedback', 'Keep the logs until the audit.');
    await page.click('#pending [data-tool-call="c-drop"] button.deny');
    await page.waitForFunction(() =>
      /^Denied drop_table c-drop/.test(document.getElementById('status')?.textContent ?? ''),
    );
    expect(await page.locator('#status').textContent()).toMatch(/\(ledger #\d+, signed\)/);
    await page.waitForSelector('#pending', { state: 'detached' });

    // The run takes the decision: the model reads who denied the call and why.
    const resumed = createSession(<ApprovalAgent />, {
      store,
      snapshot: (await store.load('hold-me'))!,
      approvalPublicKey: publicKey,
      model: scriptedModel(['Not dropped.']),
    });
    const result = await resumed.run();
    expect(result.status).toBe('completed');
    expect(JSON.stringify(resumed.state.timeline)).toMatch(/dba.*Keep the logs until the audit/);
  });

  it('refuses a decision from another origin and a foreign Host header', async () => {
    const url = `${studio.url}api/sessions/review-me/checkpoints/T-1/reject`;
    const foreign = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ by: 'x', feedback: 'y' }),
    });
    expect(foreign.status).toBe(403);
    const form = await fetch(url, { method: 'POST', body: 'by=x' });
    expect(form.status).toBe(415);
  });
});
