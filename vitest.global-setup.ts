import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SKIPS_FILE_ENV, skipSummary } from './packages/testing/src/system-requirements.js';

/**
 * Test files that need a missing system part (bubblewrap, PostgreSQL, Chromium) record a skip
 * through `requireSystem`; at the end of the run this prints them as one line. With
 * `AGATE_REQUIRE_SYSTEM=1` (`.ci/run`) those suites fail instead, naming the Debian package
 * (`SystemRequiredError`); only requirements no package provides can still skip.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'agate-skips-'));
  const file = join(dir, 'skips.jsonl');
  writeFileSync(file, '');
  process.env[SKIPS_FILE_ENV] = file;
  return () => {
    const summary = skipSummary(readFileSync(file, 'utf8').split('\n'));
    if (summary !== undefined) process.stdout.write(`\n${summary}\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
