import { createRequire } from 'node:module';

/** This package's version (package.json), printed by `agate --version`. */
export const CLI_VERSION: string = (
  createRequire(import.meta.url)('../package.json') as { version: string }
).version;
