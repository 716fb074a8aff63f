/**
 * The tests that need the packages built, packed and installed (`vitest.packed.config.ts`, run
 * by `pnpm release` and so by `pnpm test`); the main run leaves them out, so it never builds
 * `dist/` folders under the tests that run the repository's sources.
 */
export const PACKED_TESTS = [
  'release/package-lint.test.ts',
  'release/api-report.test.ts',
  'release/error-copies.test.ts',
  'packages/create-agate/src/packed-install.test.ts',
  'packages/create-agate/src/packed-templates.test.ts',
  'packages/create-agate/src/packed-durable.test.ts',
  'docs/check/package-facts.test.ts',
];
