import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { bundleStudioPage, type PageParts } from './bundle-page.js';

/** The studio's one page and the content-security policy it is served with. */
export interface StudioPage {
  html: string;
  csp: string;
}

/** Where `pnpm build` puts the bundled page: next to this module in `dist/`. */
export const PREBUILT_PAGE = new URL('./studio-page.json', import.meta.url);

let loading: Promise<StudioPage> | undefined;

/** The page, loaded once per process (a failure is not kept: the next call tries again). */
export function studioPage(): Promise<StudioPage> {
  loading ??= loadStudioPage().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * The built page when there is one (the installed CLI), else the sources bundled now (the CLI
 * run from the repository through tsx).
 */
export async function loadStudioPage(
  prebuilt: URL = PREBUILT_PAGE,
  bundle: () => Promise<PageParts> = bundleStudioPage,
): Promise<StudioPage> {
  return pageOf(existsSync(prebuilt) ? readParts(prebuilt) : await bundle());
}

function readParts(file: URL): PageParts {
  const parts = JSON.parse(readFileSync(file, 'utf8')) as Partial<PageParts>;
  if (typeof parts.script !== 'string' || typeof parts.style !== 'string') {
    throw new Error(`${file.pathname} is not a studio page build: rebuild @agate/cli.`);
  }
  return { script: parts.script, style: parts.style };
}

/**
 * One self-contained document: the style and the script inline, nothing else to load. The
 * policy lets the page run only that script and that style (by their hashes), talk only to
 * its own server, and be framed by no one.
 */
export function pageOf(parts: PageParts): StudioPage {
  const html =
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width">\n<title>Agate studio</title>\n' +
    `<style>${parts.style}</style>\n</head>\n<body>\n<div id="root"></div>\n` +
    `<script>${parts.script}</script>\n</body>\n</html>\n`;
  const csp = [
    "default-src 'none'",
    `script-src '${hashOf(parts.script)}'`,
    `style-src '${hashOf(parts.style)}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, csp };
}

function hashOf(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
