import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Checkpoint,
  createFileStore,
  createSession,
  type SessionState,
  type SessionStore,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { requireSystem, scriptedModel } from '@agate/testing';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { CHROMIUM_REQUIREMENT } from '../../../../vitest.setup-chromium.js';
import ApprovalAgent from '../__fixtures__/approval-agent.js';
import { type Studio, startStudio } from './server.js';

// The run's one Chromium, started by vitest.setup-chromium.ts, which alone decides whether there
// is one ('' when not): a second look for a Chromium here could disagree with it.
const CHROMIUM_ENDPOINT = inject('chromiumEndpoint');
const ok = requireSystem({
  tests: 'studio browser tests',
  ...CHROMIUM_REQUIREMENT,
  probe: () => CHROMIUM_ENDPOINT !== '',
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

/** A held call's input with its dangerous part at the very end, past 6,000 characters. */
const PADDED = `old_logs ${'/* keep */ '.repeat(600)}; DROP TABLE payments;`;

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
  let chromiumBrowser: Browser;
  let browser: BrowserContext;
  let page: Page;
  /** Until the session panel shows session `id` (its heading), after a click on it. */
  const shownSession = (id: string) =>
    page.locator('#session > h1', { hasText: new RegExp(`^${id}$`) }).waitFor();
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
    // A model pads the input so that its dangerous tail lies far past any preview.
    const padded = createSession(<ApprovalAgent />, {
      id: 'padded',
      store,
      approvalPublicKey: publicKey,
      model: scriptedModel([
        {
          toolCalls: [{ toolCallId: 'c-pad', toolName: 'drop_table', input: { table: PADDED } }],
        },
      ]),
    });
    expect((await padded.run()).status).toBe('awaiting-approval');
    await store.save(padded.snapshot());
    // Saved without a tick log: the studio shows its conversation from the store.
    const unlogged = createSession(<Notes />, {
      id: 'no-log',
      store,
      model: scriptedModel([
        {
          text: 'Saving the first note.',
          toolCalls: [{ toolName: 'save_note', input: { text: 'groceries' } }],
        },
        'All notes saved: groceries.',
      ]),
    });
    expect((await unlogged.run()).status).toBe('completed');
    await store.save(unlogged.snapshot());
    studio = await startStudio({ store, privateKey });
    // The run's one Chromium (vitest.setup-chromium.ts), in a context of this file's own.
    chromiumBrowser = await chromium.connect(CHROMIUM_ENDPOINT);
    browser = await chromiumBrowser.newContext({ viewport: { width: 1280, height: 760 } });
    page = await browser.newPage();
    // No request may leave 127.0.0.1: the page has no external assets.
    page.on('request', (request) => {
      if (!request.url().startsWith(studio.origin))
        throw new Error(`external request ${request.url()}`);
    });
    await page.goto(studio.url);
    await page.waitForSelector('.session');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await chromiumBrowser?.close();
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
    if (process.env.AGATE_WRITE_SCREENSHOTS === '1') {
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'studio.png') });
    }
    // Guard decisions read as sentences; the JSON behind each is one click away.
    const decision = page
      .locator('#decisions .decision')
      .filter({ hasText: 'waits for a supervisor' });
    expect(await decision.locator('.sentence').textContent()).toBe(
      'Checkpoint T-1 waits for a supervisor (submit) — submitted: Saved hello.',
    );
    expect(await decision.locator('pre').isVisible()).toBe(false);
    await decision.locator('summary').click();
    expect(await decision.locator('pre').isVisible()).toBe(true);
    expect(JSON.parse((await decision.locator('pre').textContent()) ?? '')).toMatchObject({
      type: 'checkpoint:pending',
      id: 'T-1',
    });
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
    expect(await row.locator('.call-input').textContent()).toBe(
      JSON.stringify({ table: '<b>logs</b>' }, null, 2),
    );
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

  it('shows a held call’s whole input, scrollable, with the digest the ledger signs over', async () => {
    await page.click('.session[data-id="padded"]');
    const row = page.locator('#pending [data-tool-call="c-pad"]');
    await row.waitFor();
    const input = row.locator('.call-input');
    // Never a silent cut: the whole input, its dangerous tail included, in a box that scrolls.
    const shown = (await input.textContent()) ?? '';
    expect(shown).toBe(JSON.stringify({ table: PADDED }, null, 2));
    expect(shown.length).toBeGreaterThan(6_000);
    expect(shown).toContain('; DROP TABLE payments;');
    const box = await input.evaluate((node) => ({
      overflowY: getComputedStyle(node).overflowY,
      scrolls: node.scrollHeight > node.clientHeight,
    }));
    expect(box).toEqual({ overflowY: 'auto', scrolls: true });
    await input.evaluate((node) => {
      node.scrollTop = node.scrollHeight;
    });
    await expect.poll(() => row.getByText('DROP TABLE payments').isVisible()).toBe(true);
    // The digest shown is the one the approval ledger signs the decision over.
    const stored = await store.load('padded');
    const ledger = (stored!.state as SessionState).guards.approvals.ledger;
    const request = ledger.find(
      (e) => e.checkpoint === 'c-pad' && e.kind === 'tool-approval-request',
    );
    expect(request?.inputHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await row.locator('.digest').textContent()).toContain(
      `input sha256 ${request?.inputHash}`,
    );
    expect(await row.locator('.digest').textContent()).toContain(
      `${shown.length.toLocaleString('en')} characters, shown whole`,
    );
  });

  it('shows a session saved without a tick log: its conversation, status and ledger from the store', async () => {
    await page.click('.session[data-id="no-log"]');
    // The panel of this session: the previous test's session had a #conversation too, so
    // waiting for one would read that panel before this one is drawn.
    await shownSession('no-log');
    expect(await page.locator('#tick-log-note').textContent()).toContain('kept no tick log');
    expect(await page.locator('tr.tick').count()).toBe(0);
    const messages = page.locator('#conversation .message');
    expect(
      await messages.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-role'))),
    ).toEqual(['assistant', 'tool', 'assistant']);
    expect(await messages.nth(0).textContent()).toContain('Saving the first note.');
    expect(await messages.nth(0).locator('.tool-call').textContent()).toContain('save_note');
    expect(await messages.nth(0).locator('.tool-call pre').textContent()).toBe(
      JSON.stringify({ text: 'groceries' }, null, 2),
    );
    expect(await messages.nth(1).locator('.tool-result').textContent()).toContain(
      'Saved: groceries',
    );
    expect(await messages.nth(2).textContent()).toContain('All notes saved: groceries.');
    expect(await page.locator('#session .kv').textContent()).toContain('completed');
    if (process.env.AGATE_WRITE_SCREENSHOTS === '1') {
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'studio-conversation.png') });
    }

    // The held call's session, also without a tick log: its ledger as sentences.
    await page.click('.session[data-id="padded"]');
    await shownSession('padded');
    expect(await page.locator('#ledger .sentence').first().textContent()).toMatch(
      /^#1, tick 1: The call c-pad to drop_table was held for approval \(input sha256 [0-9a-f]{64}\)/,
    );
  });

  it('trades the address’s token for a cookie: neither the address bar nor the history keeps it', async () => {
    const fresh = await chromiumBrowser.newContext();
    try {
      const tab = await fresh.newPage();
      const response = await tab.goto(studio.url);
      expect(response?.status()).toBe(200);
      expect(response?.request().redirectedFrom()?.url()).toBe(studio.url);
      await tab.waitForSelector('.session');
      expect(tab.url()).toBe(`${studio.origin}/`);
      expect(await tab.evaluate(() => window.location.href)).toBe(`${studio.origin}/`);
      // The browser's own record of the tab's history (what Back and the history page show):
      // the new tab's blank page, then the bare address, never the one with the token.
      const cdp = await fresh.newCDPSession(tab);
      const history = (await cdp.send('Page.getNavigationHistory')) as {
        entries: Array<{ url: string }>;
      };
      expect(history.entries.map((e) => e.url)).toEqual(['about:blank', `${studio.origin}/`]);
      // (`userTypedURL` keeps what was typed, token and all: the person typed it; no page,
      // Back button or history list shows it.)
      for (const entry of history.entries) expect(entry.url).not.toContain(studio.token);
      // The cookie: HttpOnly (no script of the page reads it), SameSite=Strict, this port's.
      expect(await tab.evaluate(() => document.cookie)).toBe('');
      const cookies = await fresh.cookies(studio.origin);
      expect(cookies).toEqual([
        expect.objectContaining({
          name: `agate-studio-${new URL(studio.origin).port}`,
          value: studio.token,
          domain: '127.0.0.1',
          path: '/',
          httpOnly: true,
          sameSite: 'Strict',
          expires: -1,
        }),
      ]);
      // A reload stays on the bare address and keeps working.
      await tab.reload();
      await tab.waitForSelector('.session');
      expect(tab.url()).toBe(`${studio.origin}/`);
    } finally {
      await fresh.close();
    }
  });

  it('answers nothing to a page opened without the token', async () => {
    const fresh = await chromiumBrowser.newContext();
    try {
      const other = await fresh.newPage();
      const response = await other.goto(`${studio.origin}/`);
      expect(response?.status()).toBe(401);
      expect(await other.locator('.session').count()).toBe(0);
      expect(await other.textContent('body')).toContain('needs its token');
    } finally {
      await fresh.close();
    }
  });

  it('a page of another origin decides nothing, reads nothing, and cannot frame the studio — though the browser holds the cookie', async () => {
    // The attacker's page, served from another port of 127.0.0.1: cross-origin to the studio
    // but same-site, so the browser sends the studio's cookie along (this context holds it).
    const target = `${studio.origin}/api/sessions/padded/tool-calls/c-pad/approve`;
    const evil = await serveHtml(`<!doctype html><html><body>
<form id="f" method="POST" action="${target}" enctype="text/plain" target="sink">
  <input name='{"by":"attacker","x":"' value='"}'>
</form>
<iframe name="sink"></iframe>
<iframe id="framed" src="${studio.url}"></iframe>
<script>
  const json = JSON.stringify({ by: 'attacker' });
  window.results = Promise.all([
    fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', body: json }).then(() => 'sent', () => 'failed'),
    fetch(${JSON.stringify(target)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json })
      .then((r) => 'read ' + r.status, () => 'blocked'),
    fetch(${JSON.stringify(`${studio.origin}/api/sessions`)}, { credentials: 'include' })
      .then((r) => r.text(), () => 'blocked'),
  ]);
  document.getElementById('f').submit();
</script></body></html>`);
    const attacker = await browser.newPage();
    const statuses: number[] = [];
    attacker.on('response', (response) => {
      if (response.url().startsWith(`${studio.origin}/api/`)) statuses.push(response.status());
    });
    try {
      await attacker.goto(evil.url);
      const results = await attacker.evaluate(
        () => (window as unknown as { results: Promise<string[]> }).results,
      );
      // The JSON post needs a preflight, which the studio refuses; the list cannot be read.
      expect(results).toEqual(['sent', 'blocked', 'blocked']);
      // The posts that did reach it (the no-cors fetch, the form) were refused.
      await expect.poll(() => statuses.length).toBe(2);
      // The no-cors fetch goes without the cookie (401), the form with it (403: another page).
      expect(statuses.sort()).toEqual([401, 403]);
      // The framed studio never loads (frame-ancestors 'none').
      expect(await attacker.frameLocator('#framed').locator('#root').count()).toBe(0);
    } finally {
      await attacker.close();
      await evil.close();
    }
    // Nothing was decided: the call still waits for a person.
    const stored = await store.load('padded');
    const calls = (stored!.state as SessionState).guards.approvals.calls;
    expect(calls.find((c) => c.id === 'c-pad')?.state).toBe('pending');
  });
});

/** Serves one HTML page on a free port of 127.0.0.1 (an attacker's page, another origin). */
async function serveHtml(html: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
