/**
 * Where the project lives: the repository the package.json files' `repository`, `homepage`
 * and `bugs` point at, and the docs site the workflow (.github/workflows/docs.yml) publishes
 * to its GitHub Pages. One place, checked against every package.json by docs/check/site-links.test.ts.
 */
export const REPOSITORY_URL = 'https://github.com/agate-dev/agate';
/** The site's address: a GitHub project site is served under the repository's name. */
export const SITE_URL = 'https://agate-dev.github.io/agate/';
/** The path the site is served under there (VitePress `base`). */
export const SITE_BASE = new URL(SITE_URL).pathname;
