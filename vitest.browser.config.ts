import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The headless-Chromium tests (the studio, the web chat), run after the rest of the suite and
 * one file at a time: they check what a person would feel (a 1,000-tick list in under 1 s, a
 * tick's diff in under 100 ms), which only means something on a machine that is not also
 * running the other test files.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'packages/*/src/**/*.browser.test.{ts,tsx}',
      'examples/*/src/**/*.browser.test.{ts,tsx}',
    ],
    exclude: ['**/node_modules/**'],
    fileParallelism: false,
    // The type tests run once, in the main run.
    typecheck: { ...base.test?.typecheck, enabled: false },
  },
});
