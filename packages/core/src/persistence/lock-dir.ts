import {
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { nodeCrypto } from '../ground/builtins.js';
import { SessionLockError } from './persistence-errors.js';

/**
 * A lock between processes on one directory tree, with stale locks broken safely.
 *
 * The lock at `path` is a directory holding one file, `owner-<pid>-<random>`, named uniquely
 * for each taking. It is taken by renaming a staged directory that already holds that file
 * onto `path`: the rename succeeds only while `path` is absent (or an empty directory), so it
 * is atomic, and a lock is never seen without its owner. Only two things remove an owner
 * file, each by its unique name: its holder, releasing it, and a process that read that very
 * file and judged it stale (its process is gone on this host, or it is older than `staleMs`).
 * So a lock taken after a stale one was judged can never be removed in its place: two
 * processes breaking one stale lock both unlink the same name, one succeeds, and the fresh
 * lock either of them takes next is not the file the other read.
 *
 * Why not a library: proper-lockfile (last release 2021) and npm's lockfile break a stale lock
 * by removing whatever is at the path after a stat, which is this very race (their issues #121
 * and #4, open or closed unfixed); fs-ext's flock is a native addon built at install time. An
 * OS lock (flock) would need no staleness at all; Node has none.
 */

/** How long `withLock` waits for another process's lock before giving up. */
export const LOCK_WAIT_MS = 10_000;
/** A lock older than this is left over from a crash: no save holds it nearly this long. */
export const LOCK_STALE_MS = 30_000;

const OWNER = 'owner-';

export interface LockOptions {
  /** How long to wait for a lock another process holds (ms). 0: one try, after breaking a stale lock. */
  waitMs?: number;
  /** Age (ms) past which a lock counts as left over, whoever holds it. */
  staleMs?: number;
}

/** Runs `fn` holding the lock at `path`; throws `SessionLockError` when it stays held past `waitMs`. */
export async function withLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const lock = await takeLock(path, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

/** A lock taken: `owner` is the file that says so. */
export interface HeldLock {
  readonly owner: string;
  /** Whether the owner file is still there (false only if it was broken as stale). */
  held(): Promise<boolean>;
  release(): Promise<void>;
}

/** Takes the lock at `path`, waiting up to `waitMs`; see `withLock`. */
export async function takeLock(path: string, options: LockOptions = {}): Promise<HeldLock> {
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const staleMs = options.staleMs ?? LOCK_STALE_MS;
  const token = nodeCrypto().randomBytes(9).toString('hex');
  const owner = join(path, `${OWNER}${process.pid}-${token}`);
  const text = `${process.pid} ${hostname()} ${token}\n`;
  const deadline = Date.now() + waitMs;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    if (await take(path, basename(owner), text, token)) break;
    if (await breakIfStale(path, staleMs)) continue;
    if (Date.now() >= deadline) {
      throw new SessionLockError(
        `Could not save: the lock ${path} has been held for over ${waitMs / 1000} s ` +
          `(holder: ${(await holder(path)) || 'unknown'}). If no Agate process is saving this ` +
          'session, delete it.',
        path,
      );
    }
    await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
  }
  return {
    owner,
    held: () =>
      stat(owner).then(
        () => true,
        () => false,
      ),
    // Only our own owner file, by its name: never a lock another process took after ours was
    // broken as stale. The directory goes only while it is empty.
    release: async () => {
      await unlink(owner).catch(() => {});
      await rmdir(path).catch(() => {});
    },
  };
}

/** One attempt: true when the staged lock was renamed onto `path`. */
async function take(
  path: string,
  ownerName: string,
  text: string,
  token: string,
): Promise<boolean> {
  const staged = `${path}.${token}.taking`;
  await mkdir(staged);
  try {
    await writeFile(join(staged, ownerName), text, { flag: 'wx' });
    await rename(staged, path);
    return true;
  } catch (error) {
    // Held (a directory with its owner in it), or a lock file of an earlier Agate. Windows
    // refuses to rename onto any existing directory.
    if (hasCode(error, 'ENOTEMPTY', 'EEXIST', 'ENOTDIR')) return false;
    if (process.platform === 'win32' && hasCode(error, 'EPERM')) return false;
    throw error;
  } finally {
    await rm(staged, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Breaks the lock at `path` if it is stale; true when the caller should try again at once
 * (broken, or gone already), false when it is held.
 */
async function breakIfStale(path: string, staleMs: number): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(path);
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return true;
    if (hasCode(error, 'ENOTDIR')) return breakOldLockFile(path, staleMs);
    throw error;
  }
  const owner = names.find((name) => name.startsWith(OWNER));
  if (owner === undefined) {
    // Empty: its holder is releasing it, or a breaker is. rmdir removes it only while empty.
    await rmdir(path).catch(() => {});
    return true;
  }
  const file = join(path, owner);
  let text: string;
  let age: number;
  try {
    text = await readFile(file, 'utf8');
    age = Date.now() - (await stat(file)).mtimeMs;
  } catch {
    return true; // Released or broken in the meantime.
  }
  if (!isStale(text, age, staleMs)) return false;
  // This owner file, by its name: if it is gone, another process broke it first.
  try {
    await unlink(file);
  } catch {
    return true;
  }
  await rmdir(path).catch(() => {});
  return true;
}

/**
 * A lock file an earlier Agate left (`<id>.lock` as a file). `unlink` cannot remove a
 * directory, so breaking one never removes a lock taken the new way.
 */
async function breakOldLockFile(path: string, staleMs: number): Promise<boolean> {
  let text: string;
  let age: number;
  try {
    text = await readFile(path, 'utf8');
    age = Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return true;
  }
  // Written in two steps by an earlier Agate: empty for a moment, when only its age tells.
  if (!isStale(text, age, staleMs)) return false;
  await unlink(path).catch(() => {});
  return true;
}

function isStale(text: string, age: number, staleMs: number): boolean {
  const [pid, host] = text.trim().split(' ');
  const dead = host === hostname() && pid !== undefined && !processAlive(Number(pid));
  return dead || age > staleMs;
}

/** Who holds the lock, for the message of a lock that stayed held. */
async function holder(path: string): Promise<string> {
  try {
    const owner = (await readdir(path)).find((name) => name.startsWith(OWNER));
    return owner === undefined ? '' : (await readFile(join(path, owner), 'utf8')).trim();
  } catch {
    return readFile(path, 'utf8')
      .then((text) => text.trim())
      .catch(() => '');
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return hasCode(error, 'EPERM');
  }
}

function hasCode(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}
