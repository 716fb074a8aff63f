import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** A fenced ```ts / ```tsx block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the block's first code line. */
  line: number;
  lang: 'ts' | 'tsx';
  /** Marked ```tsx run: a complete program, also executed. */
  run: boolean;
  code: string;
}

const FENCE = /^```(tsx|ts)(?=[ \t]|$)([^\n]*)\n([\s\S]*?)^```\s*$/gm;

/** Every ts/tsx block of one Markdown text, in order. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const match of markdown.matchAll(FENCE)) {
    const [, lang, info = '', code = ''] = match;
    const line = markdown.slice(0, match.index).split('\n').length + 1;
    const words = info.trim().split(/\s+/);
    blocks.push({ file, line, lang: lang as 'ts' | 'tsx', run: words.includes('run'), code });
  }
  return blocks;
}

/**
 * README.md and every Markdown file under docs/ that the repository holds: not node_modules,
 * and not docs/api/, the reference pages `pnpm docs:build` generates (gitignored; the test run
 * builds the site in the background, so they can appear while this reads the folder).
 */
export async function markdownFiles(root: string): Promise<string[]> {
  const files = [join(root, 'README.md')];
  const generated = join(root, 'docs', 'api');
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (path === generated) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  await walk(join(root, 'docs'));
  return files.sort();
}

export async function allCodeBlocks(root: string): Promise<CodeBlock[]> {
  const blocks: CodeBlock[] = [];
  for (const path of await markdownFiles(root)) {
    blocks.push(...codeBlocks(relative(root, path), await readFile(path, 'utf8')));
  }
  return blocks;
}

const NAMED = /^\/\/ ((?:[\w.-]+\/)*[\w.-]+\.tsx?)\s*$/;

/**
 * Where a block is written, relative to the output directory: one folder per Markdown file,
 * and a block whose first line is a path comment (`// src/research-agent.tsx`) gets that name,
 * so a later block of the same page can import it (`./research-agent.js`).
 */
export function blockFileName(block: CodeBlock): string {
  const folder = block.file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-');
  const named = NAMED.exec(block.code.split('\n', 1)[0] ?? '');
  return `${folder}/${named?.[1] ?? `L${block.line}.${block.lang}`}`;
}

/**
 * The block as a module: a block without imports or exports would otherwise be a script
 * sharing one global scope with every other block.
 */
export function asModule(block: CodeBlock): string {
  return `${block.code}\nexport {};\n`;
}
