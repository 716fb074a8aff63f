import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { filesBelow, publishedPackages, ROOT } from './workspace.js';

/**
 * `pnpm version-packages` runs this after `changeset version`: a published package's source may
 * keep its own version as a constant (`export const VERSION = '0.1.0'` in a `version.ts`, such
 * as @agate/core's tracer scope version), which a test checks against package.json. This writes
 * the new version there, so applying changesets leaves the tests passing.
 */
const CONSTANT = /^(export const VERSION(?:: string)? = )'[^']*';$/m;

for (const pkg of publishedPackages()) {
  for (const file of versionFiles(join(pkg.dir, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!CONSTANT.test(text)) continue;
    const updated = text.replace(CONSTANT, `$1'${pkg.version}';`);
    if (updated === text) continue;
    writeFileSync(file, updated);
    process.stdout.write(`${relative(ROOT, file)}: VERSION = '${pkg.version}'\n`);
  }
}

function versionFiles(dir: string): string[] {
  return filesBelow(dir, (path) => path.endsWith('version.ts'));
}
