import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesBelow } from './workspace.js';

const root = mkdtempSync(join(tmpdir(), 'agate-files-below-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('filesBelow', () => {
  // A package's folder as pnpm leaves it: sources, a node_modules of links into a store, and a
  // link back up (a loop, which a walk that follows links would go round until ELOOP).
  const dir = join(root, 'pkg');
  const store = join(root, 'store');
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  mkdirSync(join(store, 'dep'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.ts'), '');
  writeFileSync(join(dir, 'src', 'deep', 'b.test-d.ts'), '');
  writeFileSync(join(dir, 'node_modules', 'stray.ts'), '');
  writeFileSync(join(store, 'dep', 'index.ts'), '');
  symlinkSync(join(store, 'dep'), join(dir, 'node_modules', 'dep'));
  symlinkSync(store, join(dir, 'src', 'linked'));
  symlinkSync(dir, join(dir, 'src', 'loop'));
  symlinkSync(join(dir, 'src', 'a.ts'), join(dir, 'src', 'alias.ts'));

  const below = (keep?: (path: string) => boolean) =>
    filesBelow(dir, keep).map((path) => relative(dir, path));

  it('lists the files, sorted, entering neither node_modules nor linked folders', () => {
    expect(below()).toEqual(['src/a.ts', 'src/deep/b.test-d.ts']);
  });

  it('keeps only what `keep` accepts, given absolute paths', () => {
    expect(below((path) => path.startsWith(join(dir, 'src', 'deep')))).toEqual([
      'src/deep/b.test-d.ts',
    ]);
  });
});
