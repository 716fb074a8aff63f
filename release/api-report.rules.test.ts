import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiEntries, checkedInReports, REPORT_FOLDER, undocumentedIn } from './api-report.js';
import { publishedPackages, ROOT } from './workspace.js';

describe('apiEntries', () => {
  it('names a report for each entry point with types, and skips the others', () => {
    const exports = {
      '.': {
        '@agate/source': './src/index.ts',
        types: './dist/index.d.ts',
        import: './dist/index.js',
      },
      './guards': { types: './dist/entries/guards.d.ts', import: './dist/entries/guards.js' },
      './a/b': { types: './dist/a/b.d.ts' },
      './package.json': './package.json',
      './styles.css': { default: './dist/styles.css' },
    };
    expect(apiEntries({ exports })).toEqual([
      { subpath: '.', report: 'index.api.md', types: './dist/index.d.ts' },
      { subpath: './guards', report: 'guards.api.md', types: './dist/entries/guards.d.ts' },
      { subpath: './a/b', report: 'a-b.api.md', types: './dist/a/b.d.ts' },
    ]);
    expect(apiEntries({})).toEqual([]);
  });
});

// The reports' contents are compared in the packed tests (api-report.test.ts), which have the
// built .d.ts files; that every entry point has one is checked here, without a build.
describe.each(publishedPackages().map((pkg) => [pkg.name, pkg] as const))('%s', (_name, pkg) => {
  it('has a checked-in API report for each entry point, and none for an entry it lacks', () => {
    const folder = relative(ROOT, join(pkg.dir, REPORT_FOLDER));
    expect(
      [...checkedInReports(pkg.dir).keys()].sort(),
      `${folder}/ must hold one report per entry point of "exports": run \`pnpm api:update\``,
    ).toEqual(
      apiEntries(pkg.manifest)
        .map((e) => e.report)
        .sort(),
    );
  });
});

describe('undocumentedIn', () => {
  it('names the declarations and members a report marks undocumented', () => {
    const report = [
      '// @public (undocumented)',
      'export function User(props: MessageProps): ReactNode;',
      '',
      '// @public',
      'export interface GateState {',
      '    // (undocumented)',
      '    active: boolean;',
      '    deferred: boolean;',
      '}',
      '',
      '// @public',
      'export class Session {',
      '    // (undocumented)',
      '    get model(): LanguageModel;',
      '}',
      '// @public',
      'export interface GuardComponent<P> {',
      '    // (undocumented)',
      '    (props: P): ReactNode;',
      '}',
    ].join('\n');
    expect(undocumentedIn(report)).toEqual([
      'User',
      'GateState.active',
      'Session.model',
      'GuardComponent.(call)',
    ]);
  });
});

// Every name an agent author imports from `@agate/core` says what it is for: a new root export
// (or a member of one) without a doc comment fails here, named.
describe("@agate/core's root API", () => {
  it('documents every declaration and member', () => {
    const core = publishedPackages().find((pkg) => pkg.name === '@agate/core');
    const report = core === undefined ? undefined : checkedInReports(core.dir).get('index.api.md');
    expect(report, 'packages/core/api/index.api.md').toBeDefined();
    expect(
      undocumentedIn(report ?? ''),
      'undocumented in packages/core/api/index.api.md: add a doc comment, then `pnpm api:update`',
    ).toEqual([]);
  });
});
