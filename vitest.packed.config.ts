import { defineConfig } from 'vitest/config';
import { PACKED_TESTS } from './release/packed-tests.js';
import base from './vitest.config.js';

const { projects: _projects, ...shared } = base.test ?? {};

/**
 * The packed tests (release/packed-tests.ts): one build, one `pnpm pack` per package and one
 * install for all of them (release/packed.setup.ts), then publint, are-the-types-wrong, the
 * installed project's tests and agent, and the docs' package facts.
 */
export default defineConfig({
  ...base,
  test: {
    ...shared,
    include: PACKED_TESTS,
    exclude: ['**/node_modules/**'],
    // The skip summary; no PostgreSQL (no packed test uses one).
    globalSetup: ['./vitest.global-setup.ts', './release/packed.setup.ts'],
    // The files wait on npm, tsc and the installed project's processes: three at a time, so the
    // two longest (the installed project's and the templates', 73 s and 59 s on an idle 2-core
    // machine) run beside the others. The phase is CPU-bound there: no faster than two at a time.
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
