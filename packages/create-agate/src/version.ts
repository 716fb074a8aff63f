import { readFileSync } from 'node:fs';

/**
 * This package's version, read from its package.json (`../package.json` from `src/` and from
 * `dist/` alike), so `changeset version` bumps it with nothing else to edit. New projects
 * depend on `^` it: the `@agate/*` packages are released together at one version.
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
