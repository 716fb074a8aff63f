/**
 * Acceptance scenarios for issue 7 §3, written from the words: the `agate` commands on
 * a store made here with the public API, every failure's exit code and message, and that a
 * failing command changes nothing on disk. The commands run in-process through `main()` (what
 * they print and exit with is the same code the bin runs); the real bin's exit code end to end
 * and `pnpm agate` from the repository run as child processes.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Checkpoint,
  createFileStore,
  createSession,
  type SessionState,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import { createElement, Fragment } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agateInProcess, type InProcessOutcome } from './__fixtures__/agate-in-process.js';
import { builtCliBin } from './__fixtures__/built-cli.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const KEY = 'acceptance-supervisor-key';

function agent() {
  return createElement(
    Fragment,
    null,
    createElement(System, null, 'Two tasks.'),
    createElement(User, null, 'Go.'),
    createElement(Timeline),
    createElement(Tool, {
      name: 'read_file',
      description: 'Read a file.',
      input: z.object({ path: z.string() }),
      execute: () => 'contents',
    }),
    createElement(Checkpoint, { id: 'T-1', task: 'first' }),
    createElement(Checkpoint, { id: 'T-2', task: 'second' }),
  );
}

const submit = (id: string) => ({
  toolName: 'submit_checkpoint',
  input: { id, summary: `${id} is done` },
});
const read = { toolName: 'read_file', input: { path: 'a' } };

let work: string;
let store: string;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function agate(args: string[], env: Record<string, string> = {}): Promise<InProcessOutcome> {
  return agateInProcess([...args, '--store', store], { env });
}

/** The real bin, for one end-to-end exit code per command. */
function bin(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return spawned(process.execPath, [BIN, ...args, '--store', store], work, env);
}

function spawned(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Outcome> {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete base.AGATE_APPROVAL_KEY;
  const child = spawn(command, args, { cwd, env: { ...base, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function contents(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(store)).sort()) {
    out[name] = createHash('sha256')
      .update(await readFile(join(store, name)))
      .digest('hex');
  }
  return out;
}

async function make(id: string, turns: ScriptedTurn[], approvalKey?: string) {
  const session = createSession(agent(), {
    id,
    model: scriptedModel(turns),
    store: createFileStore(store),
    maxTicks: 1,
    ...(approvalKey !== undefined ? { approvalKey } : {}),
  });
  await session.run();
  return session;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agate-cli-acceptance-'));
  store = join(work, 'sessions');
  await make('plain', [{ toolCalls: [submit('T-1')] }]);
  await make('signed', [{ toolCalls: [submit('T-1')] }], KEY);
  // T-1 approved and T-2 open (it has a record, so the session knows it).
  const open = await make('open', [{ toolCalls: [submit('T-1')] }, { toolCalls: [read] }]);
  open.approve('T-1', { by: 'ana' });
  await open.run();
  await createFileStore(store).save(open.snapshot());
  const text = await readFile(join(store, 'plain.json'), 'utf8');
  await writeFile(join(store, 'corrupt.json'), text.slice(0, 200));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('agate sessions and show', () => {
  it('sessions: id, status, open or pending checkpoint, ticks, saved at; a corrupt file is named', async () => {
    const out = await agate(['sessions']);
    expect(out.code).toBe(0);
    const row = (id: string) => out.stdout.split('\n').find((l) => l.startsWith(`${id} `)) ?? '';
    expect(row('plain')).toMatch(/^plain\s+awaiting-approval\s+T-1 pending\s+1\s+\d{4}-/);
    expect(row('open')).toMatch(/^open\s+\S+\s+T-2 open\s+2\s/);
    expect(out.stderr).toContain('corrupt.json');
  });

  it('show: checkpoints and the ledger', async () => {
    const out = await agate(['show', 'open']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/T-1\s+approved/);
    expect(out.stdout).toMatch(/T-2\s+unlocked/);
    expect(out.stdout).toMatch(/#2 {2}tick 1 {2}T-1 {2}approved {2}by ana/);
  });

  it('show: unknown session exits 3, corrupt file exits 6', async () => {
    const [unknown, corrupt] = await Promise.all([
      agate(['show', 'nobody']),
      agate(['show', 'corrupt']),
    ]);
    expect([unknown.code, corrupt.code]).toEqual([3, 6]);
    expect(unknown.stderr).toMatch(/^agate: .*"nobody"/);
    expect(corrupt.stderr).toMatch(/^agate: .*corrupt/);
  });
});

describe('agate approve / reject failures change nothing on disk', () => {
  const cases: Array<[string, string[], Record<string, string>, number, RegExp]> = [
    ['unknown session', ['approve', 'nobody', 'T-1', '--by', 'ana'], {}, 3, /"nobody"/],
    ['unknown checkpoint', ['approve', 'plain', 'T-9', '--by', 'ana'], {}, 3, /"T-9".*"T-1"/],
    ['approved, not pending', ['approve', 'open', 'T-1', '--by', 'ana'], {}, 4, /not pending/],
    [
      'open, not pending',
      ['reject', 'open', 'T-2', '--by', 'ana', '--feedback', 'x'],
      {},
      4,
      /not pending/,
    ],
    ['signed, no key', ['approve', 'signed', 'T-1', '--by', 'ana'], {}, 5, /key/],
    [
      'signed, wrong key',
      ['approve', 'signed', 'T-1', '--by', 'ana'],
      { AGATE_APPROVAL_KEY: 'not-the-key' },
      5,
      /key/,
    ],
    ['corrupt file', ['approve', 'corrupt', 'T-1', '--by', 'ana'], {}, 6, /corrupt/],
    ['no --by', ['approve', 'plain', 'T-1'], {}, 2, /--by/],
    ['a blank --by', ['approve', 'plain', 'T-1', '--by', ' '], {}, 2, /non-empty name/],
    ['reject without feedback', ['reject', 'plain', 'T-1', '--by', 'ana'], {}, 2, /feedback/],
  ];

  it('each exits with its code and one `agate:` message; the store is byte-identical after all', async () => {
    const before = await contents();
    // In turn: the failures are what is under test, not their order. `reject` through the
    // real bin once: its exit code end to end.
    const outs: Array<InProcessOutcome | Outcome> = [];
    for (const [name, args, env] of cases) {
      outs.push(await (name === 'open, not pending' ? bin : agate)(args, env));
    }
    for (const [i, [name, , , code, message]] of cases.entries()) {
      const out = outs[i]!;
      expect({ name, code: out.code }).toEqual({ name, code });
      // One message, `agate: <what is wrong>` (docs/cli.md), for usage errors too.
      expect(out.stderr).toMatch(/^agate: [^\n]+\n$/);
      expect(out.stderr).toMatch(message);
      expect(out.stdout).toBe('');
    }
    expect(await contents()).toEqual(before);
  });
});

describe('the default store and pnpm agate', () => {
  // The real bin end to end: its exit code, and the default store under the directory it starts in.
  it('with no --store, a failing approve in an empty directory exits 3 and creates nothing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'agate-cli-empty-'));
    try {
      const out = await spawned(
        process.execPath,
        [BIN, 'approve', 'nobody', 'T-1', '--by', 'ana'],
        empty,
      );
      expect(out.code).toBe(3);
      expect(out.stderr).toContain('.agate/sessions');
      expect(await readdir(empty)).toEqual([]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('pnpm agate <command> runs from the repository root with no build step', async () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const out = await spawned('pnpm', ['-s', 'agate', 'sessions', '--store', store], root);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^signed\s+/m);
  });
});

describe('agate approve / reject on a stored session, then the session continues', () => {
  it('approve signs with AGATE_APPROVAL_KEY; the restored session goes on and is told the note', async () => {
    const out = await agate(['approve', 'signed', 'T-1', '--by', 'ana', '--note', 'Nice work.'], {
      AGATE_APPROVAL_KEY: KEY,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Approved checkpoint T-1 of session signed by ana');
    const fileStore = createFileStore(store);
    const snapshot = await fileStore.load('signed');
    const ledger = (snapshot?.state as SessionState | undefined)?.guards.checkpoints.ledger ?? [];
    expect(ledger.at(-1)).toMatchObject({ kind: 'approved', by: 'ana', note: 'Nice work.' });
    expect(ledger.at(-1)?.signature).toMatch(/^[0-9a-f]{64}$/);
    const model = scriptedModel([{ toolCalls: [submit('T-2')] }]);
    const session = createSession(agent(), {
      model,
      store: fileStore,
      snapshot,
      approvalKey: KEY,
    });
    const result = await session.run();
    expect(result.checkpoints).toEqual({ 'T-1': 'approved', 'T-2': 'pending' });
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain('Nice work.');
  });

  it('reject unlocks it; the restored session sees the feedback in its next request', async () => {
    const out = await agate(['reject', 'plain', 'T-1', '--by', 'bo', '--feedback', 'Add tests.']);
    expect(out.code).toBe(0);
    const fileStore = createFileStore(store);
    const snapshot = await fileStore.load('plain');
    const state = snapshot?.state as SessionState | undefined;
    expect(state?.guards.checkpoints.records['T-1']?.state).toBe('unlocked');
    const model = scriptedModel([{ toolCalls: [submit('T-1')] }]);
    const session = createSession(agent(), { model, store: fileStore, snapshot });
    await session.run();
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain('Add tests.');
  });
});
