import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publintProblems, typesProblems } from './package-lint.js';

/**
 * The checks the packed tests run on every tarball (package-lint.ts), on small packages made
 * here: they pass an ESM-only package like ours, and fail the mistakes they exist for.
 */
const dir = mkdtempSync(join(tmpdir(), 'agate-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A .tgz of `files` under `package/`, as npm packs them. */
function tarball(name: string, files: Record<string, string | undefined>): Uint8Array {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    if (text === undefined) continue;
    mkdirSync(dirname(join(root, 'package', path)), { recursive: true });
    writeFileSync(join(root, 'package', path), text);
  }
  execFileSync('tar', ['-czf', join(root, 'p.tgz'), '-C', root, 'package']);
  return new Uint8Array(readFileSync(join(root, 'p.tgz')));
}

const manifest = (exports: unknown) =>
  JSON.stringify({ name: 'x', version: '1.0.0', type: 'module', license: 'MIT', exports });

const esmOnly = {
  'package.json': manifest({ '.': { types: './dist/index.d.ts', import: './dist/index.js' } }),
  'dist/index.js': 'export const answer = 42;\n',
  'dist/index.d.ts': 'export declare const answer: 42;\n',
  LICENSE: 'MIT',
};

describe('publint and are-the-types-wrong, as the packed tests run them', () => {
  it('pass an ESM-only package with its types (no complaint about require from CommonJS)', async () => {
    const good = tarball('good', esmOnly);
    expect(await publintProblems(good)).toEqual([]);
    expect(await typesProblems(good)).toEqual([]);
  });

  it('fail an export whose file is not in the tarball', async () => {
    const broken = tarball('missing', { ...esmOnly, 'dist/index.js': undefined });
    expect((await publintProblems(broken)).join('\n')).toMatch(/FILE_DOES_NOT_EXIST/);
  });

  it('fail a package whose types say CommonJS while its code is ESM', async () => {
    const wrong = tarball('false-cjs', {
      ...esmOnly,
      'package.json': manifest({ '.': { types: './dist/index.d.cts', import: './dist/index.js' } }),
      'dist/index.d.cts': 'declare const answer: 42;\nexport = answer;\n',
    });
    expect((await typesProblems(wrong)).join('\n')).toMatch(/CJS/);
  });
});
