/** `@agate/core`'s version, the tracer's scope version (`version.test.ts` checks package.json). */
export const VERSION = '0.1.0';
