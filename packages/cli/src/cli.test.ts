/**
 * Every `agate` command, its output, its exit code, and that a failing command leaves the store
 * exactly as it was. Fixture sessions are made once, in this process, with the same core the
 * CLI uses. The commands on a store run in-process through `main()` (agate-in-process.ts);
 * `agate run` runs the real bin in a child process: it loads the agent file (through tsx's
 * hooks, fresh in each process, which vitest's module runner is not), and Ctrl-C is a signal
 * to a process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore, type SessionState } from '@agate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agateInProcess } from './__fixtures__/agate-in-process.js';
import { builtCliBin } from './__fixtures__/built-cli.js';
import { buildFixtureStore, fixture } from './__fixtures__/store-fixture.js';
import { ExitCode } from './errors.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const NOTES_AGENT = fixture('notes-agent.tsx');
const CHECKPOINT_AGENT = fixture('checkpoint-agent.tsx');

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The child's environment: no provider or key from the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'AGATE_BASE_URL',
    'AGATE_MODEL',
    'AGATE_API_KEY',
    'OPENAI_API_KEY',
    'AGATE_APPROVAL_KEY',
  ]) {
    delete env[name];
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

function start(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: work, env: cleanEnv(env) });
}

function finished(child: ChildProcess): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const agate = (args: string[], env?: Record<string, string>) => finished(start(args, env));
const cli = (args: string[], env?: Record<string, string>) => agateInProcess(args, { env });

/** Every file in the store and a hash of its bytes: what "nothing changed" is checked against. */
async function storeContents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  // Recursive: restore points live in a folder of their own inside the store.
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const names = entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
  for (const name of names.sort()) {
    out[name] = createHash('sha256')
      .update(await readFile(join(dir, name)))
      .digest('hex');
  }
  return out;
}

let work: string;
let store: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agate-cli-'));
  store = join(work, 'sessions');
  await buildFixtureStore(store);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('agate sessions', () => {
  it('lists the sessions with status, checkpoint, ticks and save time, and names damaged files', async () => {
    const table = await cli(['sessions', '--store', store]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+status\s+checkpoint\s+ticks\s+saved at$/);
    const row = (id: string) => lines.find((l) => l.startsWith(`${id} `)) ?? '';
    expect(row('done-1')).toMatch(/^done-1\s+completed\s+-\s+4\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    expect(row('cp-signed')).toMatch(/^cp-signed\s+awaiting-approval\s+T-1 pending\s+1\s/);
    expect(row('cp-approved')).toMatch(/^cp-approved\s+idle\s+1 approved\s+1\s/);
    expect(table.stdout).not.toContain('done-1@tick-2');
    expect(table.stdout).toContain('(1 ContinueGate restore point not shown; --all lists them.)');
    // Damaged files are named on stderr, not silently dropped, and do not fail the listing.
    expect(table.stderr).toContain('broken.json is truncated or corrupt');
    expect(table.stderr).toContain('state.tick must be a whole number >= 0');
  });
});

describe('agate show', () => {
  it('shows the timeline in brief, gates, checkpoints and the ledger', async () => {
    const [done, waiting] = await Promise.all([
      cli(['show', 'done-1', '--store', store]),
      cli(['show', 'cp-signed', '--store', store, '--messages', '1']),
    ]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('session done-1\nstatus: completed\nticks: 4   tool calls: 2');
    expect(done.stdout).toContain('Timeline (6 messages)');
    expect(done.stdout).toMatch(
      /1 {2}assistant {2}"Let me try the flaky tool first\." {2}→ flaky \{\}/,
    );
    expect(done.stdout).toContain('✗ flaky: Tool "flaky" failed: the disk is full');
    expect(done.stdout).toMatch(/note-saved\s+inactive\s+by host at tick 3/);
    expect(done.stdout).toContain(
      'Restore points (ContinueGate checkpoints)\n  done-1@tick-2  saved',
    );

    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toContain('status: awaiting-approval — Checkpoint "T-1" is awaiting');
    expect(waiting.stdout).toContain('… 1 earlier (--messages 2 shows all)');
    expect(waiting.stdout).toMatch(
      /T-1\s+pending\s+0\s+1\s+submit: submitted: Saved the hello note\./,
    );
    expect(waiting.stdout).toMatch(
      /#1 {2}tick 1 {2}T-1 {2}submitted {2}by model {2}\S+ \S+ {2}"Saved the hello note\." {2}signed \(key [0-9a-f]{16}\)/,
    );
  });

  it('fails clearly for an unknown session and a corrupt file', async () => {
    const [unknown, broken] = await Promise.all([
      cli(['show', 'nope', '--store', store]),
      cli(['show', 'broken', '--store', store]),
    ]);
    expect(unknown).toEqual({
      code: ExitCode.notFound,
      stdout: '',
      stderr: `agate: No session "nope" in ${store}. Run \`agate sessions --store ${store}\` to list the stored sessions.\n`,
    });
    expect(broken.code).toBe(ExitCode.corrupt);
    expect(broken.stderr).toContain(`${join(store, 'broken.json')} is truncated or corrupt`);
  });
});

describe('agate approve / reject', () => {
  it('refuses every bad request with its exit code and changes nothing on disk', async () => {
    const before = await storeContents(store);
    const [unknownSession, unknownCheckpoint, notPending, wrongKey, corrupt] = await Promise.all([
      cli(['approve', 'nope', 'T-1', '--by', 'ana', '--store', store]),
      cli(['reject', 'cp-errors', 'T-9', '--by', 'ana', '--feedback', 'x', '--store', store]),
      cli(['approve', 'cp-approved', 'T-1', '--by', 'ana', '--store', store]),
      cli(['approve', 'cp-signed', 'T-1', '--by', 'ana', '--store', store], {
        AGATE_APPROVAL_KEY: 'not-the-key',
      }),
      cli(['reject', 'broken', 'T-1', '--by', 'ana', '--feedback', 'x', '--store', store]),
    ]);
    expect(unknownSession.code).toBe(ExitCode.notFound);
    expect(unknownSession.stderr).toContain(`agate: No session "nope" in ${store}.`);
    expect(unknownCheckpoint.code).toBe(ExitCode.notFound);
    expect(unknownCheckpoint.stderr).toBe(
      'agate: Session "cp-errors" has no checkpoint "T-9". Its checkpoints: "T-1".\n',
    );
    expect(notPending.code).toBe(ExitCode.notPending);
    expect(notPending.stderr).toContain('Checkpoint "T-1" is approved, not pending');
    expect(wrongKey.code).toBe(ExitCode.badKey);
    expect(wrongKey.stderr).toContain(
      'This approval key is not the one session "cp-signed" signs with',
    );
    expect(corrupt.code).toBe(ExitCode.corrupt);
    expect(corrupt.stderr).toContain('is truncated or corrupt');
    for (const outcome of [unknownSession, unknownCheckpoint, notPending, wrongKey, corrupt]) {
      expect(outcome.stdout).toBe('');
    }
    expect(await storeContents(store)).toEqual(before);
  });

  it('approves with a note and rejects with feedback, recorded in the stored ledger', async () => {
    const [approved, rejected] = await Promise.all([
      cli([
        'approve',
        'cp-approve',
        'T-1',
        '--by',
        'ana',
        '--note',
        'Looks good.',
        '--store',
        store,
      ]),
      cli(
        [
          'reject',
          'cp-reject',
          'T-1',
          '--by',
          'bo',
          '--feedback',
          'Say hello louder.',
          '--store',
          store,
        ],
        {
          AGATE_APPROVAL_KEY: '',
        },
      ),
    ]);
    expect(approved).toEqual({
      code: 0,
      stderr: '',
      stdout:
        'Approved checkpoint T-1 of session cp-approve by ana (ledger entry #2, unsigned).\n' +
        `Continue the run: agate run <agent-file> --store ${store} --resume cp-approve\n`,
    });
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toContain(
      'Rejected checkpoint T-1 of session cp-reject by bo (ledger entry #2, unsigned)',
    );

    const fileStore = createFileStore(store);
    const state = async (id: string) => (await fileStore.load(id))?.state as SessionState;
    const a = await state('cp-approve');
    expect(a.guards.checkpoints.records['T-1']?.state).toBe('approved');
    expect(a.status).toBe('idle');
    expect(a.guards.checkpoints.ledger.at(-1)).toMatchObject({
      kind: 'approved',
      by: 'ana',
      note: 'Looks good.',
    });
    const r = await state('cp-reject');
    expect(r.guards.checkpoints.records['T-1']?.state).toBe('unlocked');
    expect(r.guards.checkpoints.ledger.at(-1)).toMatchObject({
      kind: 'rejected',
      by: 'bo',
      feedback: 'Say hello louder.',
    });
  });
});

describe('agate run', () => {
  it('prints plain lines off a terminal: the tool error, the refused exit, completion', async () => {
    const out = await agate(['run', NOTES_AGENT, '--scripted', fixture('finish-early.json')]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `agent: ${NOTES_AGENT}`,
      `model: scripted model from ${fixture('finish-early.json')} (offline)`,
    ]);
    expect(lines[2]).toMatch(/^session [0-9a-f-]{36}$/);
    expect(lines.slice(3, 12)).toEqual([
      '── tick 1 ──',
      '  model: Let me try the flaky tool first.',
      '  → flaky {}',
      '  ✗ flaky: Tool "flaky" failed: the disk is full',
      '── tick 2 ──',
      '  model: All done.',
      '  gate note-saved: deferred → active (by runtime)',
      '  exit refused:',
      expect.stringMatching(
        /^ {4}Gate "note-saved" was deferred, now active again \(refusal 1 of 5\)/,
      ),
    ]);
    expect(out.stdout).toContain(
      '── tick 3 ──\n  → save_note {"text":"hello"}\n  ← save_note: Saved note 1: hello\n' +
        '  gate note-saved: active → inactive (by host)\n── tick 4 ──\n  model: Saved the note. Done.\n' +
        'status: completed\nticks: 4 (session total 4)\ntokens: ',
    );
  });

  it('prints events as JSON lines; a signed run awaiting approval is approved, then finished in a second process', async () => {
    const runStore = join(work, 'json-run');
    const key = { AGATE_APPROVAL_KEY: 'json-run-key' };
    const out = await agate(
      [
        'run',
        CHECKPOINT_AGENT,
        '--scripted',
        fixture('signed-submit.json'),
        '--json',
        '--store',
        runStore,
        '--id',
        'json-1',
      ],
      key,
    );
    expect(out.code).toBe(ExitCode.waiting);
    // Issue 19: given a shared secret, agate run says plainly that a tool can read it.
    expect(out.stderr).toMatch(
      /^warning: the approval key is a shared secret, and a tool in this run can read it .*agate keys new/,
    );
    const events = out.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    expect(events[0]).toEqual({ type: 'run:start', path: [], sessionId: 'json-1', tick: 0 });
    expect(events.map((e) => e.type)).toContain('model:delta');
    // The agent's tools cannot see the key (a shell they spawn would inherit it).
    expect(events.find((e) => e.type === 'tool:result' && e.toolName === 'read_env')).toMatchObject(
      {
        output: '(not set)',
      },
    );
    expect(events.filter((e) => e.type === 'tool:refused')).toEqual([
      {
        type: 'tool:refused',
        path: [],
        tick: 1,
        toolCallId: expect.any(String),
        toolName: 'save_note',
        by: 'checkpoint',
        message: 'Execution blocked. Supervisor must approve checkpoint T-1.',
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run:end', status: 'awaiting-approval', ticks: 1 });
    // ... but the session signs its ledger with it.
    const saved = (await createFileStore(runStore).load('json-1'))?.state as SessionState;
    expect(saved.guards.checkpoints.ledger[0]?.signature).toMatch(/^[0-9a-f]{64}$/);

    const approved = await cli(
      ['approve', 'json-1', 'T-1', '--by', 'ana', '--store', runStore],
      key,
    );
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('signed with key');
    const resumed = await agate(
      [
        'run',
        CHECKPOINT_AGENT,
        '--scripted',
        fixture('after-approval.json'),
        '--store',
        runStore,
        '--resume',
        'json-1',
      ],
      key,
    );
    expect(resumed.stderr).toMatch(/^warning: the approval key is a shared secret/);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(
      'session json-1 (resumed after tick 1)\n── tick 2 ──\n  → save_note {"text":"bye"}\n  ← save_note: Saved: bye',
    );
    expect(resumed.stdout).toContain('status: completed\nticks: 2 (session total 3)');
  });

  it('aborts cleanly on Ctrl-C, saves the session, and --resume continues it', async () => {
    const runStore = join(work, 'interrupted');
    const child = start([
      'run',
      NOTES_AGENT,
      '--scripted',
      fixture('slow-second-turn.json'),
      '--json',
      '--store',
      runStore,
      '--id',
      'int-1',
    ]);
    const outcome = finished(child);
    let seen = '';
    let interrupted = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      // One Ctrl-C: a second one would leave at once, without saving.
      if (!interrupted && seen.includes('"type":"model:request","tick":2')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const out = await outcome;
    expect(out.code).toBe(ExitCode.interrupted);
    const last = JSON.parse(out.stdout.trimEnd().split('\n').at(-1) ?? '{}') as Record<
      string,
      unknown
    >;
    expect(last).toMatchObject({ type: 'run:end', status: 'aborted', ticks: 1 });
    expect(String(last.reason)).toContain('interrupted (Ctrl-C)');
    const saved = await createFileStore(runStore).load('int-1');
    expect(saved?.state).toMatchObject({ status: 'aborted', tick: 1 });

    const resumed = await agate([
      'run',
      NOTES_AGENT,
      '--scripted',
      fixture('finish.json'),
      '--store',
      runStore,
      '--resume',
      'int-1',
    ]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(
      'session int-1 (resumed after tick 1)\n── tick 2 ──\n  model: The note is saved. Done.\nstatus: completed',
    );
  });

  it('fails clearly, before anything runs, when there is no model', async () => {
    const noModel = await agate(['run', NOTES_AGENT]);
    expect(noModel.code).toBe(ExitCode.usage);
    expect(noModel.stdout).toBe('');
    expect(noModel.stderr).toBe(
      'agate: No model to run the agent with. Set AGATE_BASE_URL and AGATE_MODEL for an OpenAI-compatible server (Ollama, vLLM, LM Studio: e.g. AGATE_BASE_URL=http://localhost:11434/v1 AGATE_MODEL=qwen2.5:7b), or OPENAI_API_KEY (and optionally AGATE_MODEL) for OpenAI, or pass --scripted FILE to run offline on a script.\n',
    );
  });
});
