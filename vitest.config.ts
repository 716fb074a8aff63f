import { defineConfig } from 'vitest/config';
import { PACKED_TESTS } from './release/packed-tests.js';

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
    include: [
      'packages/*/src/**/*.test.{ts,tsx}',
      'examples/*/src/**/*.test.{ts,tsx}',
      'docs/check/**/*.test.ts',
      'bench/src/**/*.test.ts',
      'release/**/*.test.ts',
    ],
    // The headless-Chromium tests run on their own afterwards (vitest.browser.config.ts), the
    // packed ones in `pnpm release --dry-run` (vitest.packed.config.ts).
    exclude: ['**/node_modules/**', '**/*.browser.test.{ts,tsx}', ...PACKED_TESTS],
    // The type tests (`*.test-d.ts[x]`): tsc checks them and their `expectTypeOf` and
    // `@ts-expect-error` lines, each reported as a test (tsconfig.typetests.json).
    typecheck: {
      enabled: true,
      include: ['packages/*/src/**/*.test-d.{ts,tsx}'],
      tsconfig: 'tsconfig.typetests.json',
    },
    environment: 'node',
    globalSetup: ['./vitest.global-setup.ts'],
    testTimeout: 20_000,
  },
});
