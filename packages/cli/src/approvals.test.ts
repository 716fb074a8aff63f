/**
 * `agate approve` / `agate deny` on tool calls held for approval (`needsApproval`), in-process
 * through `main()` (agate-in-process.ts); `agate run`, which loads the agent file, through the
 * real bin in child processes. The sessions are made and continued in this process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  approveToolCall,
  createFileStore,
  createSession,
  generateApprovalKeyPair,
  type SessionState,
} from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { createElement } from 'react';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agateInProcess } from './__fixtures__/agate-in-process.js';
import ApprovalAgent, { dropped } from './__fixtures__/approval-agent.js';
import { builtCliBin } from './__fixtures__/built-cli.js';
import { ExitCode } from './errors.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const KEY = 'cli-approvals-key';

let dir: string;

function agate(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = { AGATE_APPROVAL_KEY: KEY },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extraEnv };
  delete env.AGATE_APPROVAL_KEY_FILE;
  if (extraEnv.AGATE_APPROVAL_PUBLIC_KEY === undefined) delete env.AGATE_APPROVAL_PUBLIC_KEY;
  const child = spawn(process.execPath, [BIN, ...args, '--store', dir], { cwd: dir, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
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

/** A command on the store in `dir`, in-process. */
function cli(args: string[], env: Record<string, string> = { AGATE_APPROVAL_KEY: KEY }) {
  return agateInProcess([...args, '--store', dir], { env });
}

/** A session that ended awaiting approval of two drop_table calls (ids d-1, d-2). */
async function waiting(id: string) {
  const session = createSession(createElement(ApprovalAgent), {
    id,
    model: scriptedModel([
      {
        toolCalls: [
          { toolCallId: 'd-1', toolName: 'drop_table', input: { table: 'old_logs' } },
          { toolCallId: 'd-2', toolName: 'drop_table', input: { table: 'users' } },
        ],
      },
    ]),
    store: createFileStore(dir),
    approvalKey: KEY,
  });
  const result = await session.run();
  expect(result.pendingApprovals.map((p) => p.id)).toEqual(['d-1', 'd-2']);
}

async function stored(id: string): Promise<SessionState> {
  return JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')).state as SessionState;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-cli-approvals-'));
  await waiting('held');
});

// What this test's runs dropped: the list is the fixture module's, and files sharing a module
// graph (the node-shared project) run the agent too.
beforeEach(() => {
  dropped.length = 0;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agate run with a tool that needs approval', () => {
  it('shows the held call and the approve command, saves the session, and goes on after agate approve', {
    timeout: 120_000,
  }, async () => {
    const agent = fileURLToPath(new URL('./__fixtures__/approval-agent.tsx', import.meta.url));
    const script = fileURLToPath(new URL('./__fixtures__/drop-old-logs.json', import.meta.url));
    const first = await agate(['run', agent, '--scripted', script, '--plain', '--id', 'run-1']);
    expect(first.code).toBe(ExitCode.waiting);
    expect(first.stdout).toContain('⏸ drop_table awaiting approval (call call_drop)');
    expect(first.stdout).toContain(
      `drop_table {"table":"old_logs"} awaits approval: agate approve run-1 call_drop --by <name> --store ${dir}`,
    );
    expect((await cli(['approve', 'run-1', 'call_drop', '--by', 'ana'])).code).toBe(0);
    // The resumed run's model: the rest of the script (the first turn was answered before).
    const rest = fileURLToPath(new URL('./__fixtures__/dropped.json', import.meta.url));
    const second = await agate(['run', agent, '--scripted', rest, '--plain', '--resume', 'run-1']);
    // (stderr carries the shared-secret warning: this test runs with AGATE_APPROVAL_KEY.)
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('← drop_table: dropped old_logs');
  });
});

describe('agate approve / deny <session> <callId>', () => {
  it('lists held calls, approves one and denies the other (signed); the next run executes only the approved one', {
    timeout: 120_000,
  }, async () => {
    const [shown, listed] = await Promise.all([cli(['show', 'held']), cli(['sessions'])]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/d-1\s+drop_table\s+pending\s+1\s+\{"table":"old_logs"\}/);
    expect(listed.stdout).toMatch(/held\s+awaiting-approval\s+2 tool calls pending/);

    const approved = await cli(['approve', 'held', 'd-1', '--by', 'dba', '--reason', 'unused']);
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(
      /^Approved tool call d-1 of session held by dba \(ledger entry #3, signed with key [0-9a-f]{16}\)\./,
    );
    const denied = await cli([
      'deny',
      'held',
      'd-2',
      '--by',
      'dba',
      '--reason',
      'users is live data',
    ]);
    expect(denied.code).toBe(0);
    expect(denied.stdout).toContain('Denied tool call d-2 of session held by dba');
    const state = await stored('held');
    expect(state.status).toBe('idle');
    expect(state.guards.approvals.calls.map((r) => [r.id, r.state])).toEqual([
      ['d-1', 'approved'],
      ['d-2', 'denied'],
    ]);

    // A second decision on the same call: not pending any more (the real bin's exit code end
    // to end, once for `deny`).
    const again = await agate(['deny', 'held', 'd-1', '--by', 'x', '--reason', 'late']);
    expect(again.code).toBe(ExitCode.notPending);

    const snapshot = await createFileStore(dir).load('held');
    const model = scriptedModel(['Dropped the old logs; kept users.']);
    const session = createSession(createElement(ApprovalAgent), {
      snapshot: snapshot!,
      model,
      store: createFileStore(dir),
      approvalKey: KEY,
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(dropped).toEqual(['old_logs']);
    const sent = JSON.stringify(model.calls[0]?.prompt);
    expect(sent).toContain('dropped old_logs');
    expect(sent).toContain('denied by dba');
    expect(sent).toContain('users is live data');
  });

  it('tells a call id from a checkpoint id, and refuses bad requests with their exit codes', {
    timeout: 120_000,
  }, async () => {
    await waiting('held-2');
    const [unknown, denyCheckpoint, noReason, noBy, longBy, controlBy, longReason] =
      await Promise.all([
        cli(['approve', 'held-2', 'd-9', '--by', 'dba']),
        cli(['deny', 'held-2', 'T-1', '--by', 'dba', '--reason', 'no']),
        cli(['deny', 'held-2', 'd-1', '--by', 'dba']),
        cli(['approve', 'held-2', 'd-1', '--by', ' ']),
        cli(['approve', 'held-2', 'd-1', '--by', 'a'.repeat(201)]),
        cli(['approve', 'held-2', 'd-1', '--by', 'mallory\u001b[1A\rApproved by: dba']),
        cli(['deny', 'held-2', 'd-2', '--by', 'dba', '--reason', 'r'.repeat(201)]),
      ]);
    // Who decides and why: one line of at most 200 characters (issue 48, item 5).
    for (const bad of [longBy, controlBy, longReason]) {
      expect(bad.code).toBe(ExitCode.usage);
      expect(bad.stderr).toMatch(
        /`(by|reason)` (has 201 characters|holds the control character U\+001B)/,
      );
    }
    // Not a held call: taken as a checkpoint id, which the session does not have.
    expect(unknown.code).toBe(ExitCode.notFound);
    expect(unknown.stderr).toContain('has no checkpoint "d-9"');
    expect(denyCheckpoint.code).toBe(ExitCode.notFound);
    expect(denyCheckpoint.stderr).toContain('agate reject held-2 T-1');
    expect(noReason.code).not.toBe(0);
    expect(noReason.stderr).toContain('--reason');
    expect(noBy.code).toBe(ExitCode.usage);
    expect(
      (await stored('held-2')).guards.approvals.calls.every((r) => r.state === 'pending'),
    ).toBe(true);
  });
});

describe('agate run --resume of a session decided under a key pair', () => {
  it('without the public key exits 5 naming it, even with a shared secret set; with it, the approved call runs', {
    timeout: 120_000,
  }, async () => {
    const pair = generateApprovalKeyPair();
    const publicKeyFile = join(dir, 'agate-approval.pub');
    await writeFile(publicKeyFile, pair.publicKey);
    const session = createSession(createElement(ApprovalAgent), {
      id: 'kp-run',
      model: scriptedModel([
        {
          toolCalls: [
            { toolCallId: 'call_drop', toolName: 'drop_table', input: { table: 'old_logs' } },
          ],
        },
      ]),
      store: createFileStore(dir),
      approvalPublicKey: pair.publicKey,
    });
    expect((await session.run()).status).toBe('awaiting-approval');
    await approveToolCall(createFileStore(dir), 'kp-run', 'call_drop', {
      by: 'dba',
      privateKey: pair.privateKey,
    });
    const agent = fileURLToPath(new URL('./__fixtures__/approval-agent.tsx', import.meta.url));
    const rest = fileURLToPath(new URL('./__fixtures__/dropped.json', import.meta.url));
    const resume = ['run', agent, '--scripted', rest, '--plain', '--resume', 'kp-run'];

    const refused = await agate(resume);
    expect(refused.code).toBe(ExitCode.badKey);
    expect(refused.stdout + refused.stderr).toContain('AGATE_APPROVAL_PUBLIC_KEY');
    expect(refused.stdout).not.toContain('dropped old_logs');
    const kinds = (await stored('kp-run')).guards.approvals.ledger.map((e) => e.kind);
    expect(kinds).not.toContain('tool-executed');

    const ran = await agate(resume, { AGATE_APPROVAL_PUBLIC_KEY: publicKeyFile });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('← drop_table: dropped old_logs');
  });
});
