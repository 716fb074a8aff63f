import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entriesOf } from './bundle-entries.js';
import { ROOT } from './workspace.js';

describe('bundle-entries: the entries to bundle come from the exports map', () => {
  it("gives @agate/core's six entries, each source to its dist file", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/core/package.json'), 'utf8')) as {
      exports: Parameters<typeof entriesOf>[0];
    };
    expect(entriesOf(manifest.exports)).toEqual([
      { in: './src/index.ts', out: 'index' },
      { in: './src/entries/guards.ts', out: 'entries/guards' },
      { in: './src/entries/stores.ts', out: 'entries/stores' },
      { in: './src/entries/jsx-runtime.ts', out: 'entries/jsx-runtime' },
      { in: './src/entries/jsx-dev-runtime.ts', out: 'entries/jsx-dev-runtime' },
      { in: './src/entries/internal.ts', out: 'entries/internal' },
    ]);
  });

  it('refuses an entry without its source condition, saying which', () => {
    expect(() =>
      entriesOf({ './extra': { types: './dist/extra.d.ts', import: './dist/extra.js' } }),
    ).toThrow('exports["./extra"] needs an "@agate/source" and an "import" path');
  });
});
