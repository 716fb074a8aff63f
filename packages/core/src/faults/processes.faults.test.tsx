import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptedModel } from '@agate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { scriptArgs } from '../__fixtures__/bundled-script.js';
import { createFileStore, createSession, type SessionSnapshot } from '../index.js';
import { FaultAgent, sleep } from './harness.js';

const SAVER = fileURLToPath(new URL('./__fixtures__/saver.tsx', import.meta.url));
/** Bundled once (__fixtures__/bundled-script.ts): no tsx transform at each start. */
const SAVER_ARGS = await scriptArgs(SAVER);
/** packages/core: tsx is its devDependency (the sources through tsx, AGATE_TEST_SOURCE_CLI=1). */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Each case gets its own directory: the two cases run at the same time (process start-up dominates). */
const dirs: string[] = [];
const newDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agate-faults-proc-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Starts the saver in a fresh Node process; resolves once it has saved for the first time. */
async function startSaver(
  args: string[],
): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [...SAVER_ARGS, ...args], {
    cwd: PACKAGE_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    exited.then((code) =>
      reject(new Error(`saver exited (${code}) before its first save:\n${stderr}`)),
    );
  });
  return { child, exited };
}

/** The saved session loads whole, and a session created from it runs on to completion. */
async function expectResumable(snapshot: SessionSnapshot | undefined) {
  expect(snapshot?.state).toMatchObject({ id: 'shared', tick: 1 });
  const session = createSession(<FaultAgent />, {
    model: scriptedModel(['Done.']),
    snapshot: snapshot as SessionSnapshot,
  });
  const result = await session.run();
  expect(result.status).toBe('completed');
  expect(session.state.tick).toBe(2);
  session.dispose();
}

describe.concurrent('faults across processes', () => {
  it('two processes saving one session', async () => {
    const dir = await newDir();
    const [a, b] = await Promise.all([
      startSaver(['race', dir, 'shared', 'a', '40']),
      startSaver(['race', dir, 'shared', 'b', '40']),
    ]);
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);

    const store = createFileStore(dir);
    // One complete snapshot from one of them (the last rename wins), and no temp files.
    expect(await readdir(dir)).toEqual(['shared.json']);
    const saved = await store.load('shared');
    expect(saved?.label).toMatch(/^[ab]-\d+$/);
    // Every save of both counted a revision (the compare and write are under the lock file).
    expect(await store.list()).toEqual([
      {
        id: 'shared',
        savedAt: saved?.savedAt,
        label: saved?.label,
        status: 'max-ticks',
        revision: 80,
      },
    ]);
    await expectResumable(saved);
  });

  it('a process killed with SIGKILL in the middle of a save', async () => {
    const dir = await newDir();
    // 4 MB snapshots: each save is long enough to be caught half-way.
    const { child, exited } = await startSaver(['forever', dir, 'shared', 'killed', '4000000']);
    const store = createFileStore(dir);
    const before = await store.load('shared');
    // Wait until a save is under way (its temp file exists), then kill the process outright.
    let midSave: string | undefined;
    for (let i = 0; i < 2_000 && midSave === undefined; i++) {
      midSave = (await readdir(dir)).find((name) => name.endsWith('.tmp'));
      if (midSave === undefined) await sleep(1);
    }
    child.kill('SIGKILL');
    expect(await exited).toBeNull();
    expect(midSave).toBeDefined();

    // The session file is a whole snapshot: the one before the kill, or the one being written
    // if its rename had already happened. Never a torn mix.
    const saved = await store.load('shared');
    expect(saved?.label).toMatch(/^killed-\d+$/);
    expect(Number(saved?.label?.slice('killed-'.length))).toBeGreaterThanOrEqual(
      Number(before?.label?.slice('killed-'.length)),
    );
    const state = saved?.state as { timeline: Array<{ content: Array<{ text?: string }> }> };
    const text = state.timeline[0]?.content[0]?.text;
    expect(text).toHaveLength(4_000_000);
    // A stray temp file may be left by the killed write; list() and load() ignore it.
    expect((await store.list()).map((s) => s.id)).toEqual(['shared']);
    await expectResumable(saved);
  });
});
