/**
 * The file store's lock, raced by real processes: many child processes start at one signal on
 * one stale lock; exactly one may win, and its lock must still be in place when it lets go (a
 * breaker that removed the lock another had just taken would leave two winners, one of them
 * holding nothing).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptArgs } from '../__fixtures__/bundled-script.js';
import { takeLock, withLock } from './lock-dir.js';
import { SessionLockError } from './persistence-errors.js';

const RACER = fileURLToPath(new URL('./__fixtures__/lock-racer.ts', import.meta.url));
/** Bundled once (__fixtures__/bundled-script.ts): no tsx transform at each start. */
const RACER_ARGS = await scriptArgs(RACER);
/** packages/core: tsx is its devDependency (the sources through tsx, AGATE_TEST_SOURCE_CLI=1). */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const RACERS = 8;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-lock-race-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (so its lock is stale on this host). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** A racer: its lines as they come, and a way to wait for one of a set. */
function startRacer(path: string) {
  const child: ChildProcess = spawn(process.execPath, [...RACER_ARGS, path], {
    cwd: PACKAGE_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const said: string[] = [];
  let stderr = '';
  const waiters: Array<() => void> = [];
  // Whole lines only: a line can arrive split across two chunks.
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    said.push(...lines.filter(Boolean));
    for (const w of waiters.splice(0)) w();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // 'close', not 'exit': 'exit' can come while the child's last lines are still in the pipe,
  // unread; 'close' comes once its stdout and stderr have ended, every line read.
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const until = async (words: readonly string[]): Promise<string> => {
    for (;;) {
      const found = said.find((line) => words.includes(line));
      if (found !== undefined) return found;
      const code = await Promise.race([
        exited.then((c) => ({ exit: c })),
        new Promise<undefined>((resolve) => waiters.push(() => resolve(undefined))),
      ]);
      if (code !== undefined && !said.some((line) => words.includes(line))) {
        throw new Error(`racer exited (${code.exit}) before ${words.join('/')}:\n${stderr}`);
      }
    }
  };
  return { child, until, exited, send: (word: string) => child.stdin?.write(`${word}\n`) };
}

/** Starts the racers, lets them go at once, and returns what each said. */
async function race(path: string) {
  const racers = Array.from({ length: RACERS }, () => startRacer(path));
  await Promise.all(racers.map((r) => r.until(['ready'])));
  for (const r of racers) r.send('go');
  const outcomes = await Promise.all(racers.map((r) => r.until(['won', 'lost'])));
  // Every loser has given up before the winners let go.
  const winners = racers.filter((_, i) => outcomes[i] === 'won');
  for (const w of winners) w.send('release');
  const kept = await Promise.all(winners.map((w) => w.until(['intact', 'removed'])));
  expect(await Promise.all(racers.map((r) => r.exited))).toEqual(racers.map(() => 0));
  return { won: winners.length, lost: outcomes.filter((o) => o === 'lost').length, kept };
}

/** What is left in the store directory of the lock named `name` (its staging dirs too). */
async function leftovers(name: string): Promise<string[]> {
  return (await readdir(dir)).filter((entry) => entry.startsWith(name));
}

describe('the file store lock, raced by processes', () => {
  it('many processes on the stale lock of a process that died: one wins, its lock stays its own', {
    timeout: 120_000,
  }, async () => {
    const path = join(dir, 'dead.lock');
    const pid = await deadPid();
    await mkdir(path);
    await writeFile(join(path, `owner-${pid}-stale`), `${pid} ${hostname()} stale\n`);
    expect(await race(path)).toEqual({ won: 1, lost: RACERS - 1, kept: ['intact'] });
    expect(await leftovers('dead.lock')).toEqual([]);
  });

  it('many processes on a lock older than the stale age (a holder on another host)', {
    timeout: 120_000,
  }, async () => {
    const path = join(dir, 'old.lock');
    await mkdir(path);
    const owner = join(path, 'owner-1-elsewhere');
    await writeFile(owner, '1 another-host elsewhere\n');
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(owner, minuteAgo, minuteAgo);
    expect(await race(path)).toEqual({ won: 1, lost: RACERS - 1, kept: ['intact'] });
    expect(await leftovers('old.lock')).toEqual([]);
  });

  it('many processes on a lock file an earlier Agate left behind', {
    timeout: 120_000,
  }, async () => {
    const path = join(dir, 'v1.lock');
    const pid = await deadPid();
    await writeFile(path, `${pid} ${hostname()} abc123\n`);
    expect(await race(path)).toEqual({ won: 1, lost: RACERS - 1, kept: ['intact'] });
    expect(await leftovers('v1.lock')).toEqual([]);
  });
});

describe('withLock', () => {
  it('waits for a live holder and gives up naming it; runs once the holder lets go', async () => {
    const path = join(dir, 'live.lock');
    const held = await takeLock(path);
    const waiting = withLock(path, async () => 'ran', { waitMs: 150 });
    await expect(waiting).rejects.toBeInstanceOf(SessionLockError);
    await expect(waiting).rejects.toThrow(`(holder: ${process.pid} ${hostname()}`);
    await held.release();
    expect(await withLock(path, async () => 'ran', { waitMs: 150 })).toBe('ran');
    expect(await leftovers('live.lock')).toEqual([]);
  });

  it('a holder whose lock was broken as stale releases nothing of the next holder', async () => {
    const path = join(dir, 'slow.lock');
    const slow = await takeLock(path);
    // Past the stale age (here: 0 ms), another process breaks it and takes the lock.
    const next = await takeLock(path, { staleMs: -1 });
    expect(await slow.held()).toBe(false);
    await slow.release();
    expect(await next.held()).toBe(true);
    await next.release();
    expect(await leftovers('slow.lock')).toEqual([]);
  });
});
