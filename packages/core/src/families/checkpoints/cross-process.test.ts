import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptArgs } from '../../__fixtures__/bundled-script.js';
import { APPROVAL_KEY_ENV } from '../../approvals/approval-signing.js';
import type { CheckpointLedgerEntry } from '../../approvals/ledger-types.js';
import type { RunResult } from '../../runtime/session.js';

const SCRIPT = fileURLToPath(new URL('./__fixtures__/checkpoint-process.tsx', import.meta.url));
/** Bundled once (__fixtures__/bundled-script.ts): no tsx transform at each start. */
const SCRIPT_ARGS = await scriptArgs(SCRIPT);
/** packages/core: tsx is its devDependency (the sources through tsx, AGATE_TEST_SOURCE_CLI=1). */
const PACKAGE_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD_TIMEOUT_MS = 30_000;
const KEY = 'cross-process-approval-key';

interface RunOutcome {
  status: RunResult['status'];
  reason?: string;
  ticks: number;
  totalTicks: number;
  modelCalls: number;
  firstRequest: string;
  checkpoints: RunResult['checkpoints'];
  ledger: CheckpointLedgerEntry[];
  warnings: string[];
  timeline: RunResult['timeline'];
}

/** Runs one step in a fresh Node process, with the key in its env. */
function child<T>(args: string[], key: string | null = KEY): Promise<T> {
  const env = { ...process.env };
  if (key === null) delete env[APPROVAL_KEY_ENV];
  else env[APPROVAL_KEY_ENV] = key;
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

describe('a checkpoint across processes', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-checkpoint-process-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('ends awaiting-approval in one, is approved in a second, finishes in a third; a tampered file stays pending', {
    timeout: 5 * CHILD_TIMEOUT_MS,
  }, async () => {
    const id = 'checkpointed';
    const file = join(dir, `${id}.json`);

    // Process A: works, submits T-1; the note-2 call in the same response is refused.
    const a = await child<RunOutcome>(['run', dir, id]);
    expect(a.status).toBe('awaiting-approval');
    expect([a.ticks, a.modelCalls]).toEqual([2, 2]);
    expect(a.checkpoints).toEqual({ 'T-1': 'pending' });
    expect(JSON.stringify(a.timeline)).toContain(
      'Execution blocked. Supervisor must approve checkpoint T-1.',
    );
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.state.status).toBe('awaiting-approval');

    // Someone flips the state in the file: the next process still holds, and says why.
    const original = await readFile(file, 'utf8');
    saved.state.guards.checkpoints.records['T-1'].state = 'approved';
    saved.state.status = 'idle';
    await writeFile(file, JSON.stringify(saved));
    const forged = await child<RunOutcome>(['run', dir, id]);
    expect(forged.status).toBe('awaiting-approval');
    expect(forged.modelCalls).toBe(0);
    expect(forged.warnings).toEqual([
      expect.stringContaining('Checkpoint "T-1" counts as pending'),
    ]);
    await writeFile(file, original);

    // Process B: a supervisor approves (signed with the same key).
    const b = await child<{ entry: CheckpointLedgerEntry }>([
      'approve',
      dir,
      id,
      'T-1',
      'ana',
      'Looks right.',
    ]);
    expect(b.entry).toMatchObject({ kind: 'approved', by: 'ana', answers: 1 });
    expect(b.entry.signature).toMatch(/^[0-9a-f]{64}$/);

    // Process C: continues past T-1, told it was approved, and finishes.
    const c = await child<RunOutcome>(['run', dir, id]);
    expect(c.status).toBe('completed');
    expect([c.ticks, c.totalTicks, c.modelCalls]).toEqual([2, 4, 2]);
    expect(c.warnings).toEqual([]);
    expect(c.firstRequest).toContain(
      'Checkpoint T-1 was approved by ana. Note from the supervisor: Looks right.',
    );
    expect(c.checkpoints).toEqual({ 'T-1': 'approved' });
    expect(c.ledger.map((e) => [e.kind, e.by])).toEqual([
      ['submitted', 'model'],
      ['approved', 'ana'],
    ]);
  });

  it('an approval signed with another key is not accepted where the session runs', {
    timeout: 4 * CHILD_TIMEOUT_MS,
  }, async () => {
    const id = 'wrong-key';
    await child<RunOutcome>(['run', dir, id]);
    // Approving without the key is refused up front (nothing written) ...
    await expect(child(['approve', dir, id, 'T-1', 'ana'], null)).rejects.toThrow(
      /signs its checkpoint ledger/,
    );
    // ... and an approval forged by re-signing with another key is caught on restore.
    const file = join(dir, `${id}.json`);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    for (const entry of saved.state.guards.checkpoints.ledger) {
      delete entry.keyId;
      delete entry.signature;
    }
    await writeFile(file, JSON.stringify(saved));
    await child(['approve', dir, id, 'T-1', 'mallory'], 'some-other-key');
    const run = await child<RunOutcome>(['run', dir, id]);
    expect(run.status).toBe('awaiting-approval');
    expect(run.modelCalls).toBe(0);
    expect(run.warnings[0]).toMatch(/signed with a different key/);
  });
});
