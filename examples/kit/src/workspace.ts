import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export interface WorkspaceOptions {
  /** Start of the temp directory's name, e.g. `agate-file-agent-`. */
  tempPrefix: string;
  /** The files a new workspace starts with, by workspace-relative path. */
  seedFiles: Readonly<Record<string, string>>;
  /** A valid path the "outside the workspace" error suggests, e.g. `notes/a.md`. */
  examplePath: string;
  /** `listFiles` shows each file's size in bytes. */
  listSizes?: boolean;
}

/**
 * A sandboxed temp workspace: every path the model gives is resolved against a root and
 * refused when it leads outside it. Each function takes the root, so one definition serves
 * any number of workspaces.
 */
export interface Workspace {
  /** A fresh temp directory seeded with `files` (default: the seed files); returns its real path. */
  create(files?: Readonly<Record<string, string>>): Promise<string>;
  resolveInside(root: string, path: string): Promise<string>;
  /** Every file under `dir`, as workspace-relative paths, one per line. */
  listFiles(root: string, dir?: string): Promise<string>;
  readFile(root: string, path: string): Promise<string>;
  writeFile(root: string, path: string, content: string): Promise<string>;
}

export class WorkspacePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspacePathError';
  }
}

const MAX_READ_BYTES = 64 * 1024;

export function defineWorkspace(options: WorkspaceOptions): Workspace {
  const create = async (files = options.seedFiles): Promise<string> => {
    const root = await realpath(await mkdtemp(join(tmpdir(), options.tempPrefix)));
    for (const [path, content] of Object.entries(files)) {
      const target = join(root, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
    return root;
  };

  /** Refuses anything that ends up outside `root`: `..`, absolute paths, symlinks pointing out. */
  const resolveInside = async (root: string, path: string): Promise<string> => {
    if (path.includes('\0')) throw new WorkspacePathError('Paths cannot contain NUL bytes.');
    const target = resolve(root, path);
    if (!isWithin(root, target)) {
      throw new WorkspacePathError(
        `Path "${path}" is outside the workspace. Use paths relative to the workspace root, such as "${options.examplePath}".`,
      );
    }
    // A symlink inside the workspace could still point out of it: check the real location of
    // the deepest part of the path that exists.
    let existing = target;
    while (!(await exists(existing))) existing = dirname(existing);
    if (!isWithin(root, await realpath(existing))) {
      throw new WorkspacePathError(`Path "${path}" leads outside the workspace through a symlink.`);
    }
    return target;
  };

  const listFiles = async (root: string, dir = '.'): Promise<string> => {
    const start = await resolveInside(root, dir);
    const entries = await readdir(start, { recursive: true, withFileTypes: true });
    const lines: string[] = [];
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const full = join(entry.parentPath, entry.name);
      const path = relative(root, full).split(sep).join('/');
      lines.push(options.listSizes ? `${path} (${(await stat(full)).size} bytes)` : path);
    }
    lines.sort();
    return lines.length > 0 ? lines.join('\n') : `No files under "${dir}".`;
  };

  const read = async (root: string, path: string): Promise<string> => {
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
  };

  const write = async (root: string, path: string, content: string): Promise<string> => {
    const target = await resolveInside(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    return `Wrote ${relative(root, target).split(sep).join('/')} (${Buffer.byteLength(content)} bytes).`;
  };

  return { create, resolveInside, listFiles, readFile: read, writeFile: write };
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

/**
 * For tests: `workspace()` creates a workspace and remembers it; `cleanup()` (pass it to
 * `afterEach`) removes every one created since the last cleanup.
 */
export function workspaceTracker(create: () => Promise<string>): {
  workspace: () => Promise<string>;
  cleanup: () => Promise<void>;
} {
  const roots: string[] = [];
  return {
    workspace: async () => {
      const root = await create();
      roots.push(root);
      return root;
    },
    cleanup: async () => {
      await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
    },
  };
}
