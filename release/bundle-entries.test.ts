import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_DEPENDENCIES, entriesOf, externalsOf } from './bundle-entries.js';
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

describe('bundle-entries: what stays an import', () => {
  it('keeps every named package and its subpaths external (nothing is bundled today)', () => {
    const external = externalsOf({
      exports: {},
      dependencies: { unbash: '^6.0.0', immer: '^11.0.0' },
      peerDependencies: { react: '^19.0.0' },
      devDependencies: { vitest: '^5.0.0' },
    });
    expect(external).toEqual([
      'unbash',
      'unbash/*',
      'immer',
      'immer/*',
      'react',
      'react/*',
      'vitest',
      'vitest/*',
    ]);
    // unbash is loaded from its package on first use (createRequire), so it is not bundled.
    expect(BUNDLED_DEPENDENCIES.size).toBe(0);
  });

  it("leaves @agate/core's React, AI SDK and zod to the app", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/core/package.json'), 'utf8'));
    const external = externalsOf(manifest);
    for (const name of ['react', 'react-reconciler', 'ai', 'zod', 'immer', '@ai-sdk/mcp', 'unbash'])
      expect(external).toContain(name);
  });
});
