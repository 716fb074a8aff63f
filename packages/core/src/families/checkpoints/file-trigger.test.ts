import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureBaseline, declaredWrites, triggerPath, wasWritten } from './file-trigger.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-file-trigger-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Sets a file's mtime to a fixed moment, so same-size rewrites can keep or move it on purpose. */
const setMtime = (path: string, seconds: number) => utimes(path, seconds, seconds);

describe('file trigger', () => {
  it('resolves the path against the workspace (default: the working directory)', () => {
    expect(triggerPath({ id: 'a', trigger: { fileWritten: 'docs/r.md' }, workspace: dir })).toBe(
      join(dir, 'docs/r.md'),
    );
    expect(triggerPath({ id: 'a', trigger: { fileWritten: 'r.md' } })).toBe(
      join(process.cwd(), 'r.md'),
    );
    expect(triggerPath({ id: 'a' })).toBeUndefined();
  });

  it('a file created since the baseline is written; a missing one is not', async () => {
    const path = join(dir, 'r.md');
    const baseline = await captureBaseline(path);
    expect(baseline).toEqual({ path, exists: false });
    expect(await wasWritten(baseline)).toBe(false);
    await writeFile(path, 'x');
    expect(await wasWritten(baseline)).toBe(true);
  });

  it('a changed size is written; a touch (same content, new mtime) is not', async () => {
    const path = join(dir, 'r.md');
    await writeFile(path, 'draft');
    await setMtime(path, 1_000);
    const baseline = await captureBaseline(path);
    await setMtime(path, 2_000);
    expect(await wasWritten(baseline)).toBe(false);
    await writeFile(path, 'draft, longer');
    expect(await wasWritten(baseline)).toBe(true);
  });

  it('a same-size rewrite with a new mtime is written (hash differs)', async () => {
    const path = join(dir, 'r.md');
    await writeFile(path, 'aaaa');
    await setMtime(path, 1_000);
    const baseline = await captureBaseline(path);
    await writeFile(path, 'bbbb');
    await setMtime(path, 2_000);
    expect(await wasWritten(baseline)).toBe(true);
  });

  it('a same-size rewrite within one mtime is caught only when the tool declared it', async () => {
    const path = join(dir, 'r.md');
    await writeFile(path, 'aaaa');
    await setMtime(path, 1_000);
    const baseline = await captureBaseline(path);
    await writeFile(path, 'bbbb');
    await setMtime(path, 1_000);
    expect(await wasWritten(baseline, false)).toBe(false);
    expect(await wasWritten(baseline, true)).toBe(true);
  });

  it('a deleted file is not written', async () => {
    const path = join(dir, 'r.md');
    await writeFile(path, 'x');
    const baseline = await captureBaseline(path);
    await rm(path);
    expect(await wasWritten(baseline)).toBe(false);
  });

  it('reads a <Tool writes> declaration, resolved; a throwing one counts as none', () => {
    const writes = (input: { path: string }) => [input.path];
    expect(declaredWrites(writes as never, { path: 'a/b.md' }, dir)).toEqual([join(dir, 'a/b.md')]);
    const throwing = () => {
      throw new Error('bad input');
    };
    expect(declaredWrites(throwing as never, {}, dir)).toEqual([]);
    expect(declaredWrites(undefined, {}, dir)).toEqual([]);
  });
});
