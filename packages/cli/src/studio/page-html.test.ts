import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleStudioPage, type PageParts } from './bundle-page.js';
import { loadStudioPage, pageOf } from './page-html.js';

let dir: string;
let bundled: PageParts;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-studio-page-'));
  bundled = await bundleStudioPage();
}, 60_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('base64');

describe('the studio page', () => {
  it('is bundled from the TSX sources into one script and one stylesheet, React included', () => {
    expect(bundled.script.length).toBeGreaterThan(50_000);
    expect(bundled.script).toContain('studioTimings');
    expect(bundled.style).toContain('.call-input');
    // Nothing for the browser to fetch: no import, no URL of another host.
    expect(bundled.script).not.toMatch(/\bimport\s*\(|from\s*["']http/);
    expect(bundled.script).not.toMatch(/<\/script/i);
  });

  it('is one document whose policy allows exactly its own script and style', () => {
    const page = pageOf(bundled);
    expect(page.html).toContain(`<script>${bundled.script}</script>`);
    expect(page.html).toContain(`<style>${bundled.style}</style>`);
    const skeleton = page.html.replace(bundled.script, '').replace(bundled.style, '');
    expect(skeleton).not.toMatch(/(src|href)=/);
    expect(page.csp).toContain(`script-src 'sha256-${sha(bundled.script)}'`);
    expect(page.csp).toContain(`style-src 'sha256-${sha(bundled.style)}'`);
    expect(page.csp).toContain("default-src 'none'");
  });

  it('is read from the build when there is one, and bundled only when there is none', async () => {
    const built = join(dir, 'studio-page.json');
    await writeFile(built, JSON.stringify({ script: 'built();', style: 'b{}' }));
    const notCalled = () => Promise.reject(new Error('bundled although a build is there'));
    const fromBuild = await loadStudioPage(pathToFileURL(built), notCalled);
    expect(fromBuild).toEqual(pageOf({ script: 'built();', style: 'b{}' }));

    const missing = pathToFileURL(join(dir, 'nothing.json'));
    const fromSources = await loadStudioPage(missing, async () => bundled);
    expect(fromSources).toEqual(pageOf(bundled));

    await writeFile(built, JSON.stringify({ script: 1 }));
    await expect(loadStudioPage(pathToFileURL(built), notCalled)).rejects.toThrow(
      /is not a studio page build: rebuild @agate\/cli/,
    );
  });

  it('is built by the build step (write-page.ts) into the file the built CLI reads', async () => {
    const out = join(dir, 'dist-studio');
    const printed = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'write-page.ts'), out],
      { encoding: 'utf8', cwd: join(import.meta.dirname, '../..') },
    );
    expect(printed).toMatch(/^studio page: .*studio-page\.json \(\d+ KiB\)\n$/);
    const written = JSON.parse(await readFile(join(out, 'studio-page.json'), 'utf8')) as PageParts;
    expect(written).toEqual(bundled);
    const notCalled = () => Promise.reject(new Error('bundled although a build is there'));
    expect(await loadStudioPage(pathToFileURL(join(out, 'studio-page.json')), notCalled)).toEqual(
      pageOf(bundled),
    );
  }, 60_000);
});
