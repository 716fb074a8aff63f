import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { filesBelow, ROOT } from '../../release/workspace.js';

/**
 * The type tests (`*.test-d.ts[x]`, docs/testing.md#testing-types) are checked by `pnpm
 * typecheck`, the step of `pnpm test` before vitest runs: a wrong `expectTypeOf` or an unused
 * `@ts-expect-error` is a compiler error there. vitest does not check them a second time, so a
 * type test that program leaves out would never be checked at all: this fails instead.
 */
const TYPE_TEST = /\.test-d\.tsx?$/;

function typeTests(dir: string): string[] {
  return filesBelow(dir, (path) => TYPE_TEST.test(path));
}

describe('the type tests', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };

  it('`pnpm test` type-checks before it runs vitest, with tsconfig.json', () => {
    expect(manifest.scripts.typecheck).toMatch(/^tsc -p tsconfig\.json --noEmit\b/);
    const steps = (manifest.scripts.test ?? '').split('&&').map((step) => step.trim());
    expect(steps.indexOf('pnpm typecheck')).toBeGreaterThanOrEqual(0);
    expect(steps.indexOf('pnpm typecheck')).toBeLessThan(steps.indexOf('vitest run'));
  });

  it("are every one in tsconfig.json's program", () => {
    const found = ['packages', 'examples'].flatMap((folder) => typeTests(join(ROOT, folder)));
    expect(found.length).toBeGreaterThan(0);
    const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), undefined, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    });
    const program = new Set(config?.fileNames ?? []);
    const left = found.filter((file) => !program.has(file)).map((file) => relative(ROOT, file));
    expect(left, "type tests tsconfig.json's include leaves out").toEqual([]);
  });
});
