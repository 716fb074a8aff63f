import { posix } from 'node:path';
import type { ToolCategory } from '../tool-category.js';

/** What one part of a shell command does. */
export type ShellOp =
  | 'read'
  | 'search'
  | 'list'
  | 'write'
  | 'edit'
  | 'delete'
  | 'move'
  | 'copy'
  | 'restore'
  | 'stash'
  | 'unstash'
  | 'test'
  | 'run'
  | 'build'
  | 'other';

/** One part of a shell command, in the order the shell runs them. */
export interface ShellPart {
  category: ToolCategory;
  op: ShellOp;
  /**
   * Files it touches, resolved against any `cd` before it in the same command (relative paths
   * stay relative). For `move`, the sources then the destination.
   */
  paths: string[];
  /** A change whose targets cannot be told (a script that rewrites files, `git stash`). */
  unknownTargets?: true;
  /** The program, for messages and for judging whether a verification ran (`pytest`). */
  program?: string;
  /**
   * A verification that runs the repository's test runner: the test files, packages or suites
   * it was given (`[]`: the suite the runner finds). Absent for linters, builds and scripts.
   */
  suite?: string[];
  /**
   * A verification whose failure does not reach the call's exit code (its output piped on, as
   * in `pytest | tail`, or `;` or `||` after it): only its output can tell how it went.
   */
  exitCodeHidden?: true;
}

export interface ClassifyOptions {
  /** Contents of scripts written earlier in the run (path → source), to tell fix scripts from tests. */
  scripts?: ReadonlyMap<string, string>;
  /** Working directory the command starts in (default: the workspace root, `''`). */
  cwd?: string;
  /** The file an editor-style agent has open (SWE-agent's `open`), for its `edit` commands. */
  openFile?: string;
  /**
   * The project's own test commands (`'make check'`, `/^\.\/scripts\/test/`): a simple command
   * that is one of them, or starts with one (a string followed by its arguments), runs the
   * project's tests.
   */
  testCommands?: readonly (string | RegExp)[];
}

export function part(
  category: ToolCategory,
  op: ShellOp,
  paths: string[],
  program?: string,
): ShellPart {
  // '' is the workspace root (`find .`): a place, not a file.
  return {
    category,
    op,
    paths: paths.filter((p) => p !== ''),
    ...(program !== undefined ? { program } : {}),
  };
}

export function unknown(op: ShellOp, program?: string): ShellPart {
  return {
    category: 'patch',
    op,
    paths: [],
    unknownTargets: true,
    ...(program !== undefined ? { program } : {}),
  };
}

export function basename(p: string): string {
  return posix.basename(p);
}

/** A path against the command's working directory, normalized (`./a/../b` → `b`). */
export function resolve(cwd: string, path: string): string {
  if (path.startsWith('~')) return path;
  const joined = path.startsWith('/') || cwd === '' ? path : `${cwd}/${path}`;
  const normal = posix.normalize(joined);
  return normal === '.' ? '' : normal.replace(/^\.\//, '').replace(/\/$/, '') || normal;
}
