import { mkdir, mkdtemp, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Files the demo starts with: two notes to summarize, and one file the task does not need. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'notes/2026-11-18-planning.md': [
    '# Planning meeting',
    '',
    '- Ship the file agent demo before the release.',
    '- Gates must block an agent that tries to finish early.',
    '- Ana owns the benchmark; target 1.3x of a plain AI SDK loop.',
    '',
  ].join('\n'),
  'notes/2026-11-20-retro.md': [
    '# Retro',
    '',
    '- The scripted model made the tick loop easy to test.',
    '- Long timelines were slow to render; memoize message components.',
    '- Next: persistence and resumable runs.',
    '',
  ].join('\n'),
  'README.txt':
    'Workspace for the Agate file agent. Summaries go to SUMMARY.md at the top level.\n',
};

/** A fresh temp directory seeded with `SEED_FILES`; the agent's tools cannot leave it. */
export async function createWorkspace(
  files: Readonly<Record<string, string>> = SEED_FILES,
): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agate-file-agent-')));
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

/**
 * Resolves a path the model gave, relative to the workspace root, and refuses anything that
 * ends up outside it (`..`, absolute paths, symlinks pointing out).
 */
export async function resolveInside(root: string, path: string): Promise<string> {
  if (path.includes('\0')) throw new WorkspacePathError('Paths cannot contain NUL bytes.');
  const target = resolve(root, path);
  if (!isWithin(root, target)) {
    throw new WorkspacePathError(
      `Path "${path}" is outside the workspace. Use paths relative to the workspace root, such as "notes/a.md".`,
    );
  }
  // A symlink inside the workspace could still point out of it: check the real location of
  // the deepest part of the path that exists.
  let existing = target;
  while (!(await exists(existing))) existing = dirname(existing);
  const real = await realpath(existing);
  if (!isWithin(root, real)) {
    throw new WorkspacePathError(`Path "${path}" leads outside the workspace through a symlink.`);
  }
  return target;
}

function isWithin(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Every file under `dir`, as workspace-relative paths with sizes, one per line. */
export async function listFiles(root: string, dir = '.'): Promise<string> {
  const start = await resolveInside(root, dir);
  const entries = await readdir(start, { recursive: true, withFileTypes: true });
  const lines: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const { size } = await stat(full);
    lines.push(`${relative(root, full).split(sep).join('/')} (${size} bytes)`);
  }
  lines.sort();
  return lines.length > 0 ? lines.join('\n') : `No files under "${dir}".`;
}

const MAX_READ_BYTES = 64 * 1024;

export async function readWorkspaceFile(root: string, path: string): Promise<string> {
  const target = await resolveInside(root, path);
  const info = await stat(target).catch(() => undefined);
  if (info === undefined)
    throw new WorkspacePathError(`No file "${path}". Call list_files to see what exists.`);
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
