import { defineConfig } from 'vitest/config';

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
    ],
    // The headless-Chromium tests run on their own afterwards (vitest.browser.config.ts).
    exclude: ['**/node_modules/**', '**/*.browser.test.{ts,tsx}'],
    environment: 'node',
    globalSetup: ['./vitest.global-setup.ts'],
    testTimeout: 20_000,
  },
});
