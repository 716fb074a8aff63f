import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, ExitCode } from './errors.js';
import { importOptional } from './optional-package.js';

const dir = mkdtempSync(join(tmpdir(), 'agate-optional-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A package installed in `dir` whose module imports `imports`; returns a loader for it. */
function installed(name: string, imports: string): () => Promise<unknown> {
  const pkg = join(dir, 'node_modules', name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name, type: 'module', exports: './index.js' }),
  );
  writeFileSync(join(pkg, 'index.js'), `import '${imports}';\nexport const loaded = true;\n`);
  const entry = join(dir, `load-${name}.mjs`);
  writeFileSync(entry, `export const load = () => import('${name}');\n`);
  return async () =>
    ((await import(pathToFileURL(entry).href)) as { load(): Promise<unknown> }).load();
}

describe('importOptional', () => {
  it('a missing package: a usage error (exit 2) that says what to install, in one sentence', async () => {
    const missing = '@agate/not-installed';
    const error = await importOptional(
      missing,
      () => import(missing),
      'use a postgres:// store',
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.usage);
    expect((error as CliError).message).toBe(
      'Install @agate/not-installed to use a postgres:// store: npm install @agate/not-installed (an optional peer of @agate/cli, not installed with it). ' +
        "Before Agate's first release: `pnpm pack:all` in a clone of Agate, then npm install <clone>/packed/agate-not-installed-<version>.tgz.",
    );
  });

  it('a package that is there but lacks one of its own imports keeps its own error', async () => {
    const load = installed('half-installed', 'not-there-either');
    const error = await importOptional('half-installed', load, 'do things').catch(
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(CliError);
    expect((error as Error).message).toContain("Cannot find package 'not-there-either'");
  });

  it('a package that loads is returned as it is', async () => {
    const load = installed('whole', 'node:fs');
    expect(await importOptional('whole', load, 'do things')).toMatchObject({ loaded: true });
  });
});
