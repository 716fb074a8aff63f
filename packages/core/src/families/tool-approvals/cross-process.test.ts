import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptArgs } from '../../__fixtures__/bundled-script.js';
import { APPROVAL_KEY_ENV } from '../../approvals/approval-signing.js';
import type { CheckpointLedgerEntry } from '../../approvals/ledger-types.js';
import type { RunResult } from '../../runtime/session.js';

const SCRIPT = fileURLToPath(new URL('./__fixtures__/approval-process.tsx', import.meta.url));
/** Bundled once (__fixtures__/bundled-script.ts): no tsx transform at each start. */
const SCRIPT_ARGS = await scriptArgs(SCRIPT);
/** packages/core: tsx is its devDependency (the sources through tsx, AGATE_TEST_SOURCE_CLI=1). */
const PACKAGE_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD_TIMEOUT_MS = 30_000;
const KEY = 'cross-process-tool-approval-key';

interface RunOutcome {
  status: RunResult['status'];
  reason?: string;
  pendingApprovals: RunResult['pendingApprovals'];
  executed: string[];
  modelCalls: number;
  lastPrompt: unknown;
  warnings: string[];
}

function child<T>(args: string[]): Promise<T> {
  const env = { ...process.env, [APPROVAL_KEY_ENV]: KEY };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...SCRIPT_ARGS, ...args],
      { cwd: PACKAGE_DIR, timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL', env },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${args[0]} process failed: ${error.message}\n${stderr}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout) as T);
        } catch {
          reject(new Error(`${args[0]} process printed no result:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

describe('a tool call approved in another process', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-approval-process-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is held in one process, approved through the store in a second, executed in a third', {
    timeout: 4 * CHILD_TIMEOUT_MS,
  }, async () => {
    // Process A: the safe calls run, drop_table is held; the session is saved awaiting approval.
    const a = await child<RunOutcome>(['run', dir, 'held']);
    expect(a.status).toBe('awaiting-approval');
    expect(a.pendingApprovals).toEqual([
      { id: 'c-drop', toolName: 'drop_table', input: { table: 'users' }, tick: 1 },
    ]);
    expect(a.executed).toEqual(['count_rows:users', 'pay:5']);
    // Process B: approves from the store, signed with the shared key.
    const b = await child<{ entry: CheckpointLedgerEntry }>([
      'approve',
      dir,
      'held',
      'c-drop',
      'dba',
    ]);
    expect(b.entry).toMatchObject({ kind: 'tool-approved', checkpoint: 'c-drop', by: 'dba' });
    expect(b.entry.signature).toEqual(expect.any(String));

    // Process C: the approved call runs first, then the model is called once and finishes.
    const c = await child<RunOutcome>(['run', dir, 'held']);
    expect(c.status).toBe('completed');
    expect(c.executed).toEqual(['drop_table:users']);
    expect(c.modelCalls).toBe(1);
    const toolResults = (
      c.lastPrompt as Array<{ role: string; content: Array<{ toolCallId: string }> }>
    )
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content.map((p) => p.toolCallId));
    expect(toolResults).toEqual(['c-count', 'c-drop', 'c-pay']);
  });
});
