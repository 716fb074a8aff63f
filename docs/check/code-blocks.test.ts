import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  allCodeBlocks,
  asModule,
  blockFileName,
  type CodeBlock,
  codeBlocks,
  markdownFiles,
} from './code-blocks.js';

/**
 * Docs cannot drift from the code: every ```ts / ```tsx block in README.md and docs/ is
 * type-checked on its own against the public API, and the blocks marked ```tsx run are
 * executed (they run offline, on a scripted model).
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const out = join(here, '..', '.check');

let blocks: CodeBlock[] = [];
const paths = new Map<CodeBlock, string>();

beforeAll(async () => {
  blocks = await allCodeBlocks(root);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  for (const block of blocks) {
    const path = join(out, blockFileName(block));
    paths.set(block, path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, asModule(block));
  }
});

afterAll(() => rm(out, { recursive: true, force: true }));

describe('codeBlocks', () => {
  it('names a block by its leading path comment, within its page', () => {
    const [block] = codeBlocks('docs/testing.md', '```tsx\n// src/agent.tsx\nexport {};\n```\n');
    expect(blockFileName(block!)).toBe('docs-testing/src/agent.tsx');
    const [plain] = codeBlocks('README.md', '```ts\nlet a;\n```\n');
    expect(blockFileName(plain!)).toBe('README/L2.ts');
  });

  it('finds ts and tsx blocks with their line and run flag, and nothing else', () => {
    const md = [
      '# T',
      '```ts',
      'const a = 1;',
      '```',
      '```sh',
      'ls',
      '```',
      '```tsx run',
      '<x/>',
      '```',
    ].join('\n');
    expect(codeBlocks('x.md', md)).toEqual([
      { file: 'x.md', line: 3, lang: 'ts', run: false, code: 'const a = 1;\n' },
      { file: 'x.md', line: 9, lang: 'tsx', run: true, code: '<x/>\n' },
    ]);
  });
});

describe('docs code blocks', () => {
  it('type-check against the public API', () => {
    expect(blocks.length).toBeGreaterThan(20);
    const config = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram([...paths.values()], {
      ...options,
      noEmit: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
    });
    const problems: string[] = [];
    for (const [block, path] of paths) {
      const source = program.getSourceFile(path);
      const diagnostics = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
      for (const d of diagnostics) {
        const at =
          d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
        const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        problems.push(`${block.file}:${block.line + at}: ${text}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('marked `run` run to the end offline', async () => {
    const runnable = blocks.filter((b) => b.run);
    // What the examples print is for the docs' reader; the run's output stays the tests'.
    const printed = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      for (const block of runnable) {
        const path = paths.get(block)!;
        await expect(
          import(pathToFileURL(path).href),
          `${block.file}:${block.line}`,
        ).resolves.toBeDefined();
      }
    } finally {
      printed.mockRestore();
    }
  }, 120_000);
});

describe('markdownFiles', () => {
  it('reads README.md and docs/, not the generated docs/api/ reference pages', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agate-md-'));
    try {
      await mkdir(join(dir, 'docs', 'api'), { recursive: true });
      await mkdir(join(dir, 'docs', 'guides'), { recursive: true });
      for (const file of ['README.md', 'docs/a.md', 'docs/guides/b.md', 'docs/api/cli.md']) {
        await writeFile(join(dir, file), '# x\n');
      }
      expect((await markdownFiles(dir)).map((f) => f.slice(dir.length + 1))).toEqual([
        'README.md',
        'docs/a.md',
        'docs/guides/b.md',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
