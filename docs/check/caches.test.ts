import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's "Caches" table lists every module-level cache of @agate/core with its
 * key and invariant (issue 49): a module-level `Map`, `WeakMap`, `WeakSet` or `PerToolList` in
 * the shipped sources that the table does not name fails here, so the page stays the whole list.
 * (Constant `Set`s of names are lookup tables, not caches.)
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'packages/core/src');
const MODULE_CACHE = /^(?:export )?const (\w+) = new (?:WeakMap|Map|WeakSet|PerToolList)\b/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('docs/architecture.md, Caches', () => {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const table = page.slice(page.indexOf('## Caches'), page.indexOf('## How a tick flows'));
  const caches = sources(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(MODULE_CACHE)].map((m) => ({
      name: m[1] ?? '',
      file: relative(SRC, file),
    })),
  );

  it('finds the caches in the sources', () => {
    expect(caches.length).toBeGreaterThan(15);
  });

  it('lists each one with its file', () => {
    const rows = table.split('\n').filter((line) => line.startsWith('| `'));
    const missing = caches.filter(
      ({ name, file }) =>
        !rows.some((row) => row.includes(`\`${name}\``) && row.includes(`\`${file}\``)),
    );
    expect(missing.map(({ name, file }) => `${name} (${file})`)).toEqual([]);
  });
});
