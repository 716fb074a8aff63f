import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as source from '../index.js';

type Core = typeof source;

/**
 * Error identity by literal (issue 49): an app that minifies its bundle renames classes, and
 * `isInstance` markers made from class names would then differ between two copies. Here the core
 * is bundled and minified twice into two files (two module instances, as when a CLI and an agent
 * each bring one), and the copies still name and tell apart each other's errors.
 */
const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '../..');
const repoPackages = join(packageDir, '..');

async function minifiedCopies(): Promise<{ a: Core; b: Core; code: string }> {
  const result = await build({
    entryPoints: [join(packageDir, 'src/index.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text ?? '';
  // Inside the package, so the bundle's bare imports (react, ai, zod) resolve as the source's do.
  const out = join(packageDir, 'node_modules/.cache/error-names');
  mkdirSync(out, { recursive: true });
  const stamp = `${process.pid}-${Date.now()}`;
  const files = ['a', 'b'].map((copy) => join(out, `${copy}-${stamp}.mjs`));
  for (const file of files) writeFileSync(file, code);
  const [a, b] = (await Promise.all(files.map((file) => import(pathToFileURL(file).href)))) as [
    Core,
    Core,
  ];
  // Loaded: the files are no longer needed (the modules stay in memory).
  for (const file of files) rmSync(file, { force: true });
  return { a, b, code };
}

const copies = minifiedCopies();

const errorClasses = (core: Core) =>
  Object.entries(core as Record<string, unknown>).filter(
    (entry): entry is [string, Core['AgateError']] =>
      typeof entry[1] === 'function' &&
      (entry[1] === core.AgateError || entry[1].prototype instanceof core.AgateError),
  );

describe('two minified copies of @agate/core', () => {
  it('are minified: the class names are gone from the code', async () => {
    const { code } = await copies;
    expect(code).not.toMatch(/class StaleSessionError\b/);
    expect(code).toContain("'StaleSessionError'".replaceAll("'", '"'));
  });

  it('name every exported error class as it is exported', async () => {
    const { a } = await copies;
    const classes = errorClasses(a);
    expect(classes.length).toBeGreaterThan(30);
    for (const [exported, value] of classes) expect(value.name).toBe(exported);
    expect(new a.StaleSessionError('s1', 1, 2).name).toBe('StaleSessionError');
  });

  it('tell each other’s errors apart, subclasses included', async () => {
    const { a, b } = await copies;
    expect(a.StaleSessionError).not.toBe(b.StaleSessionError);
    const theirs = new b.MissingApprovalKeyError('s1', 'approvalKey', 'hmac:ab', 1);
    expect(theirs).not.toBeInstanceOf(a.MissingApprovalKeyError);
    expect(a.MissingApprovalKeyError.isInstance(theirs)).toBe(true);
    expect(a.ApprovalKeyError.isInstance(theirs)).toBe(true);
    expect(a.AgateError.isInstance(theirs)).toBe(true);
    expect(a.StaleSessionError.isInstance(theirs)).toBe(false);
    expect(b.AgateError.isInstance(new a.StaleSessionError('s1', 1, 2))).toBe(true);
  });

  it('and the unminified source tells theirs apart too (a CLI built one way, an agent another)', async () => {
    const { a } = await copies;
    expect(source.StaleSessionError.isInstance(new a.StaleSessionError('s1', 1, 2))).toBe(true);
    expect(
      a.ApprovalKeyError.isInstance(
        new source.MissingApprovalKeyError('s1', 'approvalKey', 'hmac:ab', 1),
      ),
    ).toBe(true);
    expect(source.SnapshotError.isInstance(new a.StaleSessionError('s1', 1, 2))).toBe(false);
  });
});

/** Every `class X extends Y` of the shipped sources, Y not a built-in error. */
function errorSubclassesInSources(): { file: string; name: string; source: string }[] {
  const found: { file: string; name: string; source: string }[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== '__fixtures__') walk(path);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name)) {
        const source = readFileSync(path, 'utf8');
        for (const m of source.matchAll(/^\s*(?:export )?class (\w+) extends (\w+)/gm)) {
          if (!['Error', 'TypeError', 'RangeError'].includes(m[2] ?? '')) {
            found.push({ file: path, name: m[1] ?? '', source });
          }
        }
      }
    }
  };
  for (const pkg of readdirSync(repoPackages)) {
    const src = join(repoPackages, pkg, 'src');
    try {
      walk(src);
    } catch {
      // a package without sources (none today)
    }
  }
  return found;
}

describe('every Agate error class of every package', () => {
  it('names itself with a literal (nameErrorClass in a static block)', () => {
    const classes = errorSubclassesInSources();
    expect(classes.length).toBeGreaterThan(50);
    const unnamed = classes
      .filter(({ name, source }) => !source.includes(`nameErrorClass(${name}, '${name}')`))
      .map(({ file, name }) => `${name} (${file.slice(repoPackages.length + 1)})`);
    expect(unnamed).toEqual([]);
  });
});
