import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject, it } from 'vitest';
import { factsBlock, renderFacts, staleFacts, withFacts } from '../../release/facts.js';
import { publishedPackages } from '../../release/workspace.js';

/**
 * docs/getting-started.md's package sizes, file counts and install counts are measurements of
 * this build (release/packed.setup.ts packed and installed it), not numbers typed once and
 * left to rot. `pnpm docs:facts` (AGATE_WRITE_FACTS=1) writes the measured block instead.
 */
const page = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'getting-started.md');
const { packed, project } = inject('packedRun');

it("getting-started's package facts are this build's, within 10%", () => {
  const manifests = publishedPackages().map((p) => p.manifest);
  const measured = renderFacts(packed, manifests, project.runtime, project.full);
  const text = readFileSync(page, 'utf8');
  if (process.env.AGATE_WRITE_FACTS === '1') {
    writeFileSync(page, withFacts(text, measured));
    return;
  }
  const written = factsBlock(text);
  expect(written, 'docs/getting-started.md has no package-facts block').toBeDefined();
  expect(
    staleFacts(written?.block ?? '', measured),
    'stale package facts in docs/getting-started.md: run `pnpm docs:facts` to write the measured ones',
  ).toEqual([]);
});
