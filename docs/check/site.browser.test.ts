import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, relative } from 'node:path';
import { requireSystem } from '@agate/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHROMIUM_REQUIREMENT } from '../../vitest.setup-chromium.js';
import type { SiteBuildOutcome } from '../../vitest.setup-docs-site.js';
import { SITE_DIR } from '../site/build.js';

// The run's one Chromium (vitest.setup-chromium.ts); '' when there is none.
const CHROMIUM_ENDPOINT = inject('chromiumEndpoint');
const ok = requireSystem({
  tests: 'docs site browser tests',
  ...CHROMIUM_REQUIREMENT,
  probe: () => CHROMIUM_ENDPOINT !== '',
});

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Serves the built site as GitHub Pages would: files as they are, `/dir/` as its index.html. */
function serve(root: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = normalize(join(root, path));
    if (relative(root, file).startsWith('..')) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

/**
 * The site's build, started by the run's setup (vitest.setup-docs-site.ts) when the run
 * started: resolves once it has ended (the setup answers then), rejects if it failed.
 */
function siteBuilt(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => {
        const outcome = JSON.parse(body) as SiteBuildOutcome;
        if (outcome.code === 0) resolve();
        else
          reject(
            new Error(
              `the docs site's build failed (${outcome.code ?? outcome.signal}):\n${outcome.output}`,
            ),
          );
      });
      response.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * Pages loaded side by side by the every-page test: one. Chromium already keeps both cores of
 * a two-core machine busy loading one page (its renderer, compositor and raster threads); on
 * such a machine three at a time took 1.5x the wall time and 1.7x the CPU of one at a time
 * (44 pages: 30.6 s and 61 s of CPU against 20.3 s and 37 s).
 */
const PAGES_AT_ONCE = 1;

/** Every page of the site, as paths from its root. */
function pages(): string[] {
  return readdirSync(SITE_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html') && f !== '404.html')
    .map((f) => `/${f}`)
    .sort();
}

describe.skipIf(!ok)('the docs site in a real browser', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;
  /** Requests to anywhere but the site: there must be none (no CDN fonts, no analytics). */
  const outside: string[] = [];

  beforeAll(async () => {
    // Built once per change of its inputs (docs, the packages' sources), reused otherwise;
    // the build started with the run, so most of it has overlapped the other test files.
    await siteBuilt(inject('docsSiteBuild'));
    server = await serve(SITE_DIR);
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.connect(CHROMIUM_ENDPOINT);
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
  }, 30_000);

  /** A page that records console errors and refuses (and records) requests leaving the site. */
  async function open(): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext();
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    return { page, errors };
  }

  it('renders every page with no console errors and no request leaving the site', async () => {
    const all = pages();
    expect(all).toContain('/api/core.html');
    expect(all).toContain('/getting-started.html');
    const empty: string[] = [];
    const errors: string[] = [];
    let next = 0;
    async function visitRest(): Promise<void> {
      const { page, errors: pageErrors } = await open();
      for (let path = all[next++]; path !== undefined; path = all[next++]) {
        await page.goto(`${origin}${path}`, { waitUntil: 'load' });
        await page.locator('#app .VPContent').waitFor();
        const heading = await page.locator('.VPContent h1').first().textContent({ timeout: 5_000 });
        if (!heading?.trim()) empty.push(path);
      }
      await page.context().close();
      errors.push(...pageErrors);
    }
    await Promise.all(Array.from({ length: PAGES_AT_ONCE }, visitRest));
    expect({ empty: empty.sort(), errors, outside }).toEqual({
      empty: [],
      errors: [],
      outside: [],
    });
  }, 300_000);

  it('finds createSession with the local search', async () => {
    const { page, errors } = await open();
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await page.locator('.VPNavBarSearch button').click();
    await page.locator('.VPLocalSearchBox input').fill('createSession');
    const first = page.locator('.VPLocalSearchBox .result').first();
    await first.waitFor();
    const titles = await page.locator('.VPLocalSearchBox .result').allTextContents();
    expect(titles.some((t) => t.includes('createSession'))).toBe(true);
    await page.context().close();
    expect({ errors, outside }).toEqual({ errors: [], outside: [] });
  }, 60_000);

  it("shows Gate's props on its reference page", async () => {
    const { page, errors } = await open();
    await page.goto(`${origin}/api/core.html#Gate`, { waitUntil: 'load' });
    const heading = page.locator('h3[id="Gate"]');
    await heading.waitFor();
    // The section: from Gate's heading to the next name's.
    const text = await heading.evaluate((h) => {
      let out = '';
      for (
        let n = h.nextElementSibling;
        n && n.tagName !== 'H3' && n.tagName !== 'H2';
        n = n.nextElementSibling
      )
        out += `${n.textContent}\n`;
      return out;
    });
    expect(text).toContain('export declare function Gate(props: GateProps): ReactNode;');
    expect(text).toContain('Props');
    for (const prop of [
      'name: string',
      'instructions: string',
      'description: string',
      'clearWhen?',
      'activateWhen?',
      'maxBlocks?',
    ])
      expect(text).toContain(prop);
    // TSDoc is shown: the summary of Gate and of a prop.
    expect(text).toContain('Declarative');
    expect(text).toContain('Host-verified clear');
    await page.context().close();
    expect({ errors, outside }).toEqual({ errors: [], outside: [] });
  }, 60_000);
});
