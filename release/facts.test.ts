import { describe, expect, it } from 'vitest';
import { FACTS_END, FACTS_START, factsBlock, renderFacts, staleFacts, withFacts } from './facts.js';
import type { InstallFacts } from './node-modules.js';
import type { PackedPackage } from './pack-all.js';

const tarball = (name: string, size: number, unpackedSize: number, entryCount: number) =>
  ({
    name,
    version: '0.1.0',
    file: `${name}.tgz`,
    size,
    unpackedSize,
    entryCount,
    files: [],
  }) satisfies PackedPackage;

const install = (packages: number, bytes: number, sizes: InstallFacts['sizes']): InstallFacts => ({
  packages,
  bytes,
  diskBytes: Math.round(bytes * 1.1),
  sizes,
});

describe('renderFacts', () => {
  it('tables the tarballs (core first) and says what a project installs, esbuild by its own name', () => {
    const text = renderFacts(
      [tarball('create-agate', 8_000, 20_000, 16), tarball('@agate/core', 336_000, 1_200_000, 431)],
      [
        { name: 'create-agate', version: '0.1.0' },
        {
          name: '@agate/core',
          version: '0.1.0',
          dependencies: { immer: '^11', '@ai-sdk/mcp': '^2' },
          peerDependencies: { zod: '^4', '@agate/testing': '^0.1.0' },
          peerDependenciesMeta: { '@agate/testing': { optional: true } },
        },
      ],
      install(68, 47_200_000, [
        { name: '@esbuild/darwin-arm64@0.28.2', bytes: 10_100_000 },
        { name: 'ai@7.0.173', bytes: 8_900_000 },
        { name: 'zod@4.6.7', bytes: 6_100_000 },
        { name: 'react@19.3.1', bytes: 180_000 },
      ]),
      install(150, 110_000_000, []),
    );
    expect(text).toMatchInlineSnapshot(`
      "Sizes of the tarballs \`pnpm pack:all\` writes:

      | package | tarball | unpacked | files |
      | --- | --- | --- | --- |
      | \`@agate/core\` | 328 KiB | 1,172 KiB | 431 |
      | \`create-agate\` | 8 KiB | 20 KiB | 16 |

      What each depends on (\`package.json\`):

      - \`@agate/core\`: \`@ai-sdk/mcp\`, \`immer\`; peers \`zod\`; optional peers \`@agate/testing\`
      - \`create-agate\`: nothing

      A project holding \`@agate/core\` and \`@agate/cli\` (their peers \`ai\`, \`react\` and \`zod\`,
      and the starter's model providers) installs 68 packages, 47.2 MB of \`node_modules\` (51.9 MB on disk);
      the biggest are \`esbuild\` 10 MB (tsx's compiler, which loads TypeScript agent files: its binary for this platform), \`ai\` 9 MB (the AI SDK), \`zod\` 6 MB (schemas).
      The project \`create-agate\` writes adds only its test runner (\`vitest\` and \`@agate/testing\`):
      150 packages, 110.0 MB in all. (Counted after \`npm install\`; sizes are
      the files' own, as \`du --apparent-size\` counts them; on disk is what \`du\` counts, blocks.)"
    `);
  });
});

describe('staleFacts', () => {
  const measured = '| `@agate/core` | 331 KiB | 1,180 KiB | 433 |\n68 packages, 47.2 MB';

  it('accepts figures within 10% of the measured ones', () => {
    expect(
      staleFacts('| `@agate/core` | 320 KiB | 1,100 KiB | 430 |\n70 packages, 45.0 MB', measured),
    ).toEqual([]);
  });

  it('names each figure that drifted further, with its line', () => {
    expect(
      staleFacts('| `@agate/core` | 236 KiB | 1,180 KiB | 323 |\n68 packages, 47.2 MB', measured),
    ).toEqual([
      '236 in the docs, 331 measured: | `@agate/core` | 331 KiB | 1,180 KiB | 433 |',
      '323 in the docs, 433 measured: | `@agate/core` | 331 KiB | 1,180 KiB | 433 |',
    ]);
  });

  it('reports changed words (a package added, renamed or reordered) as one difference', () => {
    const [difference, ...rest] = staleFacts(
      '| `@agate/kore` | 331 KiB | 1,180 KiB | 433 |\n68 packages, 47.2 MB',
      measured,
    );
    expect(difference).toMatch(/^the text differs:/);
    expect(rest).toEqual([]);
  });
});

describe('the facts block', () => {
  const page = `# Title\n\n${FACTS_START}\nold facts\n${FACTS_END}\n\nMore.\n`;

  it('is found between its markers and replaced, the rest of the page kept', () => {
    expect(factsBlock(page)?.block).toBe('old facts');
    expect(withFacts(page, 'new facts')).toBe(
      `# Title\n\n${FACTS_START}\nnew facts\n${FACTS_END}\n\nMore.\n`,
    );
    expect(factsBlock('# no block')).toBeUndefined();
  });
});
