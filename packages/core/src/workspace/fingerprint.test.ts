import { mkdir, mkdtemp, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedFiles, fingerprintWorkspace, markOf, withHashes } from './fingerprint.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-fp-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'a.ts'), 'a');
  await writeFile(join(dir, 'README.md'), 'readme');
  await mkdir(join(dir, 'node_modules', 'x'), { recursive: true });
  await writeFile(join(dir, 'node_modules', 'x', 'index.js'), 'x');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('fingerprintWorkspace and changedFiles', () => {
  it('records regular files by relative path, skipping ignored directories', async () => {
    const fp = await fingerprintWorkspace(dir);
    expect([...fp.keys()].sort()).toEqual(['README.md', 'src/a.ts']);
  });

  it('reports created, changed and deleted files', async () => {
    const before = await fingerprintWorkspace(dir);
    await writeFile(join(dir, 'src', 'a.ts'), 'changed');
    await writeFile(join(dir, 'new.txt'), 'n');
    await unlink(join(dir, 'README.md'));
    const after = await fingerprintWorkspace(dir);
    expect(await changedFiles(dir, before, after)).toEqual(['README.md', 'new.txt', 'src/a.ts']);
  });

  it('sees a same-size rewrite through its mtime, and a touch as no change once hashed', async () => {
    const before = await withHashes(dir, await fingerprintWorkspace(dir));
    const later = new Date(Date.now() + 5_000);
    await utimes(join(dir, 'src', 'a.ts'), later, later);
    expect(await changedFiles(dir, before, await fingerprintWorkspace(dir))).toEqual([]);
    await writeFile(join(dir, 'src', 'a.ts'), 'b');
    await utimes(join(dir, 'src', 'a.ts'), later, new Date(Date.now() + 10_000));
    expect(await changedFiles(dir, before, await fingerprintWorkspace(dir))).toEqual(['src/a.ts']);
  });

  it('scratch files created and deleted in between leave no change', async () => {
    const before = await fingerprintWorkspace(dir);
    await writeFile(join(dir, 'reproduce.py'), 'print(1)');
    await unlink(join(dir, 'reproduce.py'));
    expect(await changedFiles(dir, before, await fingerprintWorkspace(dir))).toEqual([]);
  });

  it('markOf is undefined for a missing file or a directory', async () => {
    expect(await markOf(join(dir, 'nope'))).toBeUndefined();
    expect(await markOf(join(dir, 'src'))).toBeUndefined();
    expect((await markOf(join(dir, 'README.md')))?.size).toBe(6);
  });
});
