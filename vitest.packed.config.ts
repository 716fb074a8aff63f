import { defineConfig } from 'vitest/config';
import { PACKED_TESTS } from './release/packed-tests.js';
import base from './vitest.config.js';

/**
 * The packed tests (release/packed-tests.ts): one build, one `pnpm pack` per package and one
 * install for all of them (release/packed.setup.ts), then publint, are-the-types-wrong, the
 * installed project's tests and agent, and the docs' package facts.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: PACKED_TESTS,
    exclude: ['**/node_modules/**'],
    // The type tests run once, in the main run.
    typecheck: { ...base.test?.typecheck, enabled: false },
    globalSetup: [...[base.test?.globalSetup ?? []].flat(), './release/packed.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
