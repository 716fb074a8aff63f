import { defineConfig } from 'vitest/config';
import { PACKED_TESTS } from './release/packed-tests.js';

// vitest's one-line notice that type tests are experimental (the run prints no warnings it
// can avoid; the version is pinned in the lockfile, as that notice asks).
process.env.VITEST_DISABLE_EXPERIMENTAL_LOG ??= '1';

const BROWSER_TESTS = [
  'packages/*/src/**/*.browser.test.{ts,tsx}',
  'examples/*/src/**/*.browser.test.{ts,tsx}',
];

export default defineConfig({
  resolve: {
    // Resolve workspace packages to their TypeScript sources (see the "@agate/source" export condition).
    conditions: ['@agate/source'],
  },
  ssr: {
    resolve: {
      conditions: ['@agate/source'],
    },
  },
  test: {
    environment: 'node',
    // Once per run, before any project: the skip summary and the run's one PostgreSQL.
    globalSetup: ['./vitest.global-setup.ts', './vitest.setup-postgres.ts'],
    testTimeout: 20_000,
    // DBOS.migrate() (createClient, on each test's fresh database) says this through the
    // console, and takes no logger to say it through; everything else is printed.
    onConsoleLog: (log) => !log.startsWith('Running DBOS system database migrations...'),
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: [
            'packages/*/src/**/*.test.{ts,tsx}',
            'examples/*/src/**/*.test.{ts,tsx}',
            'docs/check/**/*.test.ts',
            'bench/src/**/*.test.ts',
            'release/**/*.test.ts',
          ],
          // The packed tests run in `pnpm release --dry-run` (vitest.packed.config.ts).
          exclude: ['**/node_modules/**', ...BROWSER_TESTS, ...PACKED_TESTS],
          // Most files wait on the processes, servers and timers they start more than they
          // compute: on a 2-core machine four at a time keep both cores busy.
          maxWorkers: 4,
          // The type tests (`*.test-d.ts[x]`): tsc checks them and their `expectTypeOf` and
          // `@ts-expect-error` lines, each reported as a test (tsconfig.typetests.json).
          typecheck: {
            enabled: true,
            include: ['packages/*/src/**/*.test-d.{ts,tsx}'],
            tsconfig: 'tsconfig.typetests.json',
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER_TESTS,
          // The headless-Chromium tests (the studio, the web chat) run after the rest and one
          // file at a time: they check what a person would feel (a 1,000-tick list in under
          // 1 s, a tick's diff in under 100 ms), which only means something on a machine that
          // is not also running the other test files.
          sequence: { groupOrder: 1 },
          fileParallelism: false,
          globalSetup: ['./vitest.setup-chromium.ts'],
        },
      },
    ],
  },
});
