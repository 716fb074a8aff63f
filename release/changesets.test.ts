import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishedPackages, ROOT } from './workspace.js';

/** The release settings every published package must carry (docs/releasing.md). */
describe('the published packages', () => {
  const packages = publishedPackages();

  it('are the one fixed group changesets versions together', () => {
    const config = JSON.parse(readFileSync(join(ROOT, '.changeset', 'config.json'), 'utf8')) as {
      fixed: string[][];
      access: string;
    };
    expect(config.access).toBe('public');
    expect(config.fixed.map((group) => [...group].sort())).toEqual([
      packages.map((p) => p.name).sort(),
    ]);
  });

  it('share one version (create-agate scaffolds projects on ^ its own)', () => {
    expect(new Set(packages.map((p) => p.version)).size).toBe(1);
  });

  it('publish publicly, with provenance, what their files list holds', () => {
    for (const { name, manifest } of packages) {
      expect(manifest.publishConfig, name).toEqual({ access: 'public', provenance: true });
      expect(manifest.files, name).toEqual(
        expect.arrayContaining(['dist', 'README.md', 'LICENSE']),
      );
    }
  });
});
