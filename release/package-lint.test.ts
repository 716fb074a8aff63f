import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { publintProblems, typesProblems } from './package-lint.js';

/**
 * What a published package must pass (issue 39): publint (package.json against the files the
 * tarball holds) and are-the-types-wrong (the types resolve, and match the JavaScript, for
 * every entry point), on the very tarballs `pnpm release` publishes.
 */
const { dir, packed } = inject('packedRun');

describe.each(packed.map((p) => [p.name, p] as const))('%s', (_name, pkg) => {
  const tarball = new Uint8Array(readFileSync(join(dir, pkg.file)));

  it('passes publint (errors and warnings)', async () => {
    expect(await publintProblems(tarball)).toEqual([]);
  });

  it('passes are-the-types-wrong (ESM-only: node16 from ESM, and bundlers)', async () => {
    expect(await typesProblems(tarball)).toEqual([]);
  });
});
