import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { filesBelow, publishedPackages, ROOT } from '../../release/workspace.js';
import { entryModels } from './api-models.js';
import { entryPage, entryPagePath, indexPage } from './api-pages.js';
import { emitDeclarations } from './declarations.js';

export const DOCS = join(ROOT, 'docs');
/** Where `pnpm docs:build` writes the site (gitignored). */
export const SITE_DIR = join(DOCS, '.site');
/** The generated reference pages (gitignored): made anew on each build. */
export const API_DIR = join(DOCS, 'api');
const STAMP = '.inputs';

/** Writes the API reference pages from the published packages' declarations. */
export function writeApiPages(): string[] {
  const dirs = emitDeclarations();
  const work = mkdtempSync(join(tmpdir(), 'agate-api-models-'));
  try {
    const models = entryModels(dirs, work);
    rmSync(API_DIR, { recursive: true, force: true });
    mkdirSync(API_DIR, { recursive: true });
    const written = [join(API_DIR, 'index.md')];
    writeFileSync(written[0] as string, indexPage(models));
    for (const model of models) {
      const file = join(DOCS, `${entryPagePath(model.importPath)}.md`);
      writeFileSync(file, entryPage(model, models));
      written.push(file);
    }
    return written;
  } finally {
    rmSync(work, { recursive: true, force: true });
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A hash of what the site is made from: the docs, the site's code and config, each published
 * package's sources and manifest. A site built from the same inputs is reused (the browser
 * test builds once per change, not once per run).
 */
export function inputsHash(): string {
  const hash = createHash('sha256');
  const docs = filesBelow(DOCS, (p) => {
    const rel = relative(DOCS, p);
    return !/^(node_modules|\.site|api|check|\.check)\//.test(rel) && !rel.includes('/cache/');
  });
  const sources = publishedPackages().flatMap((pkg) => [
    join(pkg.dir, 'package.json'),
    ...filesBelow(join(pkg.dir, 'src'), (p) => /\.tsx?$/.test(p) && !/\.test(-d)?\.tsx?$/.test(p)),
  ]);
  for (const file of [...docs, ...sources, join(ROOT, 'release/api-report.ts')]) {
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Builds the site into docs/.site; with `reuse`, keeps a site built from the same inputs. */
export async function buildSite(
  options: { reuse?: boolean; base?: string } = {},
): Promise<{ reused: boolean; ms: number }> {
  const started = Date.now();
  const inputs = `${inputsHash()} base=${options.base ?? '/'}`;
  if (options.reuse === true) {
    try {
      if (
        readFileSync(join(SITE_DIR, STAMP), 'utf8') === inputs &&
        statSync(join(SITE_DIR, 'index.html')).isFile()
      )
        return { reused: true, ms: Date.now() - started };
    } catch {
      // no site yet, or one from other inputs: built below
    }
  }
  writeApiPages();
  if (options.base !== undefined) process.env.AGATE_DOCS_BASE = options.base;
  const { build } = await import('vitepress');
  await build(DOCS);
  writeFileSync(join(SITE_DIR, STAMP), inputs);
  return { reused: false, ms: Date.now() - started };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const base = process.env.AGATE_DOCS_BASE;
  const reuse = process.argv.includes('--reuse');
  const { ms, reused } = await buildSite(base === undefined ? { reuse } : { reuse, base });
  const where = relative(process.cwd(), SITE_DIR);
  process.stdout.write(
    reused
      ? `docs site in ${where} is current (same inputs): reused\n`
      : `docs site built into ${where} in ${(ms / 1000).toFixed(1)} s\n`,
  );
}
