import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No function in the shipped sources (`packages/*\/src`, without tests, `__fixtures__` and
 * `.d.ts`) is longer than 120 lines (issue 49): long functions sit where people edit most, and
 * a reader should see one job per function. Every function-like node with a body counts,
 * nested ones included, from its first token to its closing line.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 120;

interface LongFunction {
  readonly where: string;
  readonly lines: number;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name === '__fixtures__' || entry.name === 'node_modules' ? [] : sources(path);
    }
    return /\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$|\.d\.ts$/.test(entry.name)
      ? [path]
      : [];
  });
}

function functionName(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  return ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : '<anonymous>';
}

function longFunctions(path: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      const name = functionName(node);
      if (lines > MAX_LINES) {
        found.push({ where: `${path}:${first + 1} ${name}`, lines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe(`functions in packages/*/src are at most ${MAX_LINES} lines`, () => {
  const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true }).filter((entry) =>
    entry.isDirectory(),
  );
  const files = packages.flatMap((entry) => {
    const src = join(ROOT, 'packages', entry.name, 'src');
    return existsSync(src) ? sources(src) : [];
  });
  const long = files.flatMap((file) =>
    longFunctions(relative(ROOT, file), readFileSync(file, 'utf8')),
  );

  it('reads the sources', () => {
    expect(files.length).toBeGreaterThan(200);
  });

  it('finds no function over the limit', () => {
    expect(long.map(({ where, lines }) => `${where} (${lines} lines)`)).toEqual([]);
  });

  it('counts nested functions and arrows, naming them by file:line', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `    const v${i} = ${i};`);
    const text = [
      'export function outer() {',
      '  const inner = () => {',
      ...body(MAX_LINES - 2),
      '  };',
      '  return inner;',
      '}',
      'function short() {',
      ...body(MAX_LINES - 2),
      '}',
    ].join('\n');
    expect(longFunctions('sample.ts', text).map(({ where, lines }) => `${where} ${lines}`)).toEqual(
      [`sample.ts:1 outer ${MAX_LINES + 3}`],
    );
    // One more line makes the nested arrow itself too long.
    const longer = text.replace('  };', '    const extra = 1;\n  };');
    expect(longFunctions('sample.ts', longer).map(({ where }) => where)).toEqual([
      'sample.ts:1 outer',
      'sample.ts:2 inner',
    ]);
  });
});
