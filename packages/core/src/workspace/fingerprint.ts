import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { nodeCrypto } from '../ground/builtins.js';

/** One file as a fingerprint remembers it. */
export interface FileMark {
  size: number;
  mtimeMs: number;
  /** sha256 of the content, computed lazily (only when size and mtime cannot decide). */
  hash?: string;
}

/** Relative path (with `/`) → mark, for every regular file under a directory. */
export type Fingerprint = ReadonlyMap<string, FileMark>;

export interface FingerprintOptions {
  /** Directory names never descended into. Default: `.git`, `node_modules`, `.agate`. */
  ignore?: readonly string[];
  /** Stop after this many files (a runaway workspace must not stall every tick). Default 20,000. */
  maxFiles?: number;
}

const DEFAULT_IGNORE = ['.git', 'node_modules', '.agate'];

/**
 * Walks `dir` and records every regular file's size and mtime. Hashes are filled in only by
 * `changedFiles` when a file's size and mtime both match but the content must be compared
 * (writes within one mtime tick), so a fingerprint of an unchanged tree costs one `stat` a file.
 */
export async function fingerprintWorkspace(
  dir: string,
  options: FingerprintOptions = {},
): Promise<Map<string, FileMark>> {
  const root = resolve(dir);
  const ignore = new Set(options.ignore ?? DEFAULT_IGNORE);
  const maxFiles = options.maxFiles ?? 20_000;
  const marks = new Map<string, FileMark>();
  const walk = async (current: string): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return; // Removed while walking, or unreadable: what is not there has no mark.
    }
    for (const entry of entries) {
      if (marks.size >= maxFiles) return;
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!ignore.has(entry.name)) await walk(path);
      } else if (entry.isFile()) {
        const mark = await markOf(path);
        if (mark !== undefined) marks.set(toRelative(root, path), mark);
      }
    }
  };
  await walk(root);
  return marks;
}

/** The mark of one file, or undefined when it does not exist (or is not a regular file). */
export async function markOf(path: string): Promise<FileMark | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? { size: info.size, mtimeMs: info.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Paths that differ between two fingerprints of `dir`: created, deleted, or changed. A file
 * whose size and mtime are unchanged is taken as unchanged; one whose size is unchanged but
 * mtime moved is hashed on both sides when the old side has a hash (a `touch` is not a change).
 */
export async function changedFiles(
  dir: string,
  before: Fingerprint,
  after: Fingerprint,
): Promise<string[]> {
  const changed: string[] = [];
  for (const [path, mark] of after) {
    const old = before.get(path);
    if (old === undefined) changed.push(path);
    else if (!(await sameFile(resolve(dir, path), old, mark))) changed.push(path);
  }
  for (const path of before.keys()) if (!after.has(path)) changed.push(path);
  return changed.sort();
}

async function sameFile(path: string, old: FileMark, now: FileMark): Promise<boolean> {
  if (old.size !== now.size) return false;
  if (old.mtimeMs === now.mtimeMs) return true;
  if (old.hash === undefined) return false;
  now.hash ??= await hashFile(path);
  return now.hash === old.hash;
}

/** sha256 of a file's content ('' when it cannot be read). */
export async function hashFile(path: string): Promise<string> {
  try {
    return nodeCrypto()
      .createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  } catch {
    return '';
  }
}

/** Adds content hashes to every mark (for fingerprints that must survive a `touch`). */
export async function withHashes(dir: string, fingerprint: Fingerprint): Promise<Fingerprint> {
  const root = resolve(dir);
  await Promise.all(
    [...fingerprint].map(async ([path, mark]) => {
      mark.hash ??= await hashFile(resolve(root, path));
    }),
  );
  return fingerprint;
}

function toRelative(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}
