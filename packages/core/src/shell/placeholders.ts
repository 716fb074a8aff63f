import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { nodeNet } from '../ground/builtins.js';
import type { Placeholder } from './host-run-files.js';
import { SandboxUnavailableError } from './shell-errors.js';

/**
 * The empty files and folders that stand, for a command's lifetime, where an absent host-run
 * file would be created (`.git`, `.vscode`, `.bashrc` …), so a read-only bind can be laid on
 * them. They are visible on the host while a command runs. Every command that needs one holds
 * it, in this process or another; the last to let go removes it, and only while it is still
 * the empty one that was made (a file someone wrote into it stays).
 *
 * Holding and letting go happen under one lock per user: an abstract Unix socket, which the
 * kernel hands to one listener at a time and frees when its process dies, so a crash leaves no
 * stale lock. Without it, one process could remove a placeholder just as another's sandbox
 * mounted it, and the kernel would then take the mount away from that sandbox.
 */
export interface HeldPlaceholders {
  /** Every placeholder held for this command: made here, or made for another and joined. */
  paths: readonly string[];
  release(): Promise<void>;
}

interface State {
  path: string;
  kind: 'dir' | 'file';
  content: string;
  dev: number;
  ino: number;
  /** pid → commands of that process holding it. */
  holders: Record<string, number>;
}

const uid = process.getuid?.() ?? 0;
const LOCK_NAME = `\0agate-placeholders-${uid}`;
const LOCK_WAIT_MS = 10_000;

/** The file that records every placeholder of this user and who holds it (under the lock). */
function registry(): string {
  const dir = join('/tmp', `agate-placeholders-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // /tmp is shared: refuse a folder (or link) someone else put there.
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
    throw new SandboxUnavailableError(
      `${dir} is not a private folder of this user; remove it so <Shell> can keep its placeholders there.`,
    );
  }
  return join(dir, 'held.json');
}

async function lock(): Promise<Server> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    const server = nodeNet().createServer();
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen({ path: LOCK_NAME, exclusive: true }, () => resolve(undefined));
    });
    if (error === undefined) return server;
    if (error.code !== 'EADDRINUSE' || Date.now() > deadline) {
      throw new SandboxUnavailableError(
        `<Shell> could not take its placeholder lock (${error.code ?? error.message}).`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function unlock(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

async function withLock<T>(work: () => T | Promise<T>): Promise<T> {
  const held = await lock();
  try {
    return await work();
  } finally {
    await unlock(held);
  }
}

type Registry = Record<string, State>;

function readRegistry(file: string): Registry {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Registry;
  } catch {
    return {};
  }
}

function writeRegistry(file: string, registry: Registry): void {
  if (Object.keys(registry).length === 0) {
    rmSync(file, { force: true });
    return;
  }
  // Written in place, under the lock: a file torn by a crash reads as empty, which only leaves
  // placeholders behind (none is removed without its record).
  writeFileSync(file, JSON.stringify(registry));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function pruneDead(state: State): void {
  for (const pid of Object.keys(state.holders)) {
    if (!alive(Number(pid))) delete state.holders[pid];
  }
}

function identity(path: string): { dev: number; ino: number; dir: boolean } | undefined {
  try {
    const stat = lstatSync(path);
    return { dev: stat.dev, ino: stat.ino, dir: stat.isDirectory() };
  } catch {
    return undefined;
  }
}

/** Still the placeholder that was made: same inode, and nothing put in it. */
function untouched(state: State): boolean {
  const now = identity(state.path);
  if (now === undefined || now.dev !== state.dev || now.ino !== state.ino) return false;
  try {
    return state.kind === 'dir'
      ? readdirSync(state.path).length === 0
      : readFileSync(state.path, 'utf8') === state.content;
  } catch {
    return false;
  }
}

/**
 * Of `paths`, the placeholders nobody alive holds any more: removed (when still untouched) and
 * forgotten. Made at once, like their making.
 */
async function removeUnheld(states: Registry, paths: readonly string[]): Promise<void> {
  const gone: State[] = [];
  for (const path of paths) {
    const state = states[path];
    if (state === undefined) continue;
    pruneDead(state);
    if (Object.keys(state.holders).length > 0) continue;
    if (untouched(state)) gone.push(state);
    delete states[path];
  }
  await Promise.all(
    gone.map((state) =>
      (state.kind === 'dir' ? rmdir(state.path) : unlink(state.path)).catch(() => {
        // Gone or in use: nothing to undo.
      }),
    ),
  );
}

async function make(placeholder: Placeholder): Promise<void> {
  try {
    if (placeholder.kind === 'dir') await mkdir(placeholder.path);
    else await writeFile(placeholder.path, placeholder.content, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new SandboxUnavailableError(
      `<Shell> could not make ${placeholder.path} to keep commands from creating it ` +
        `(${(error as Error).message}). Let commands write host-run files with ` +
        'sandbox.allowHostRunFileWrites: true, or make the folder writable.',
    );
  }
}

/**
 * Makes (or joins) the placeholders of one command. `plan` is worked out under the lock, so
 * no other command removes a placeholder between the look at the folder and the hold: it
 * names the placeholders to make (`placeholders`) and the paths found in place that will be
 * bound read-only (`existing`); any of those that is another command's placeholder is held too.
 * A path that exists by now but was not made here (the host created a real one) is left alone.
 */
export async function holdPlaceholders<
  P extends { placeholders: readonly Placeholder[]; readOnly: readonly string[] },
>(plan: () => P): Promise<HeldPlaceholders & { plan: P }> {
  const file = registry();
  const pid = String(process.pid);
  const { planned, held } = await withLock(async () => {
    const states = readRegistry(file);
    // Placeholders whose holders all died (a crash, a killed worker) go first, wherever they are.
    await removeUnheld(states, Object.keys(states));
    const planned = plan();
    if (planned.placeholders.length === 0 && planned.readOnly.length === 0) {
      writeRegistry(file, states);
      return { planned, held: [] as string[] };
    }
    const paths: string[] = [];
    const hold = (state: State) => {
      pruneDead(state);
      state.holders[pid] = (state.holders[pid] ?? 0) + 1;
      states[state.path] = state;
      paths.push(state.path);
    };
    for (const path of planned.readOnly) {
      const state = states[path];
      const now = identity(path);
      if (state !== undefined && now?.dev === state.dev && now.ino === state.ino) hold(state);
    }
    // Made at once: each is a journal write, and under load they wait on the disk.
    const absent = planned.placeholders.filter((p) => identity(p.path) === undefined);
    await Promise.all(absent.map(make));
    for (const placeholder of planned.placeholders) {
      const now = identity(placeholder.path);
      if (now === undefined) continue;
      const state = absent.includes(placeholder)
        ? { ...placeholder, dev: now.dev, ino: now.ino, holders: {} }
        : states[placeholder.path];
      if (state === undefined || state.dev !== now.dev || state.ino !== now.ino) {
        // Not one of ours (or ours was replaced): a real file now.
        delete states[placeholder.path];
        continue;
      }
      hold(state);
    }
    writeRegistry(file, states);
    return { planned, held: paths };
  });
  let released = false;
  return {
    plan: planned,
    paths: held,
    release: async () => {
      if (released || held.length === 0) return;
      released = true;
      await withLock(async () => {
        const states = readRegistry(file);
        for (const path of held) {
          const state = states[path];
          if (state === undefined) continue;
          state.holders[pid] = (state.holders[pid] ?? 1) - 1;
          if (state.holders[pid]! <= 0) delete state.holders[pid];
        }
        await removeUnheld(states, held);
        writeRegistry(file, states);
      });
    },
  };
}
