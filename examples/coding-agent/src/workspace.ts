import { mkdir, mkdtemp, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** The bug the agent must fix: `add` subtracts. */
export const BUGGY_MATH = [
  '/** Adds two numbers. */',
  'export function add(a, b) {',
  '  return a - b;',
  '}',
  '',
].join('\n');

/** A small project: one module with a bug, and a test file for `node --test`. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'tiny-math', private: true, type: 'module' }, null, 2)}\n`,
  'math.js': BUGGY_MATH,
  'math.test.js': [
    "import assert from 'node:assert/strict';",
    "import { test } from 'node:test';",
    "import { add } from './math.js';",
    '',
    "test('add adds', () => {",
    '  assert.equal(add(2, 3), 5);',
    '  assert.equal(add(-1, 1), 0);',
    '});',
    '',
  ].join('\n'),
};

/** A fresh temp directory seeded with `files`; the agent's file tools cannot leave it. */
export async function createWorkspace(
  files: Readonly<Record<string, string>> = SEED_FILES,
): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agate-coding-agent-')));
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return root;
}

export class WorkspacePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspacePathError';
  }
}

/** Resolves a model-given path inside the workspace; anything leading out of it is refused. */
export async function resolveInside(root: string, path: string): Promise<string> {
  if (path.includes('\0')) throw new WorkspacePathError('Paths cannot contain NUL bytes.');
  const target = resolve(root, path);
  if (!isWithin(root, target)) {
    throw new WorkspacePathError(
      `Path "${path}" is outside the workspace. Use paths relative to the workspace root, such as "math.js".`,
    );
  }
  // A symlink inside the workspace could point out of it: check the deepest existing part.
  let existing = target;
  while (!(await exists(existing))) existing = dirname(existing);
  if (!isWithin(root, await realpath(existing))) {
    throw new WorkspacePathError(`Path "${path}" leads outside the workspace through a symlink.`);
  }
  return target;
}

function isWithin(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export async function listFiles(root: string, dir = '.'): Promise<string> {
  const start = await resolveInside(root, dir);
  const entries = await readdir(start, { recursive: true, withFileTypes: true });
  const lines = entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
  return lines.length > 0 ? lines.join('\n') : `No files under "${dir}".`;
}

const MAX_READ_BYTES = 64 * 1024;

export async function readWorkspaceFile(root: string, path: string): Promise<string> {
  const target = await resolveInside(root, path);
  const info = await stat(target).catch(() => undefined);
  if (info === undefined) {
    throw new WorkspacePathError(`No file "${path}". Call list_files to see what exists.`);
  }
  if (!info.isFile()) throw new WorkspacePathError(`"${path}" is a directory, not a file.`);
  if (info.size > MAX_READ_BYTES) {
    throw new WorkspacePathError(
      `"${path}" is ${info.size} bytes; read_file reads at most ${MAX_READ_BYTES}.`,
    );
  }
  return readFile(target, 'utf8');
}

export async function writeWorkspaceFile(
  root: string,
  path: string,
  content: string,
): Promise<string> {
  const target = await resolveInside(root, path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, content);
  return `Wrote ${relative(root, target).split(sep).join('/')} (${Buffer.byteLength(content)} bytes).`;
}
