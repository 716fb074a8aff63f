import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptArgs } from '../../__fixtures__/bundled-script.js';
import { createFileStore } from '../../persistence/file-store.js';

const SCRIPT = fileURLToPath(new URL('./__fixtures__/resume-process.tsx', import.meta.url));
/** Bundled once (__fixtures__/bundled-script.ts): no tsx transform at each start. */
const SCRIPT_ARGS = await scriptArgs(SCRIPT);
const PACKAGE_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD_TIMEOUT_MS = 30_000;

interface Outcome {
  status: string;
  parentCalls: number;
  childCalls: number;
  childPrompt: string;
  child: { status: string; ticks: number; totalTicks: number } | null;
  timeline: unknown[];
}

function runProcess(mode: 'start' | 'resume', dir: string, id: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...SCRIPT_ARGS, mode, dir, id],
      { cwd: PACKAGE_DIR, timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${mode} process failed: ${error.message}\n${stderr}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout) as Outcome);
        } catch {
          reject(new Error(`${mode} process printed no result:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

describe('a sub-agent interrupted mid-run in one process', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-subagent-process-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('resumes at its own tick in another', { timeout: 2 * CHILD_TIMEOUT_MS }, async () => {
    const a = await runProcess('start', dir, 'parent-1');
    expect(a.status).toBe('aborted');
    expect([a.parentCalls, a.childCalls]).toEqual([1, 2]);
    const saved = await createFileStore(dir).load('parent-1');
    // The parent's tick 1 is in flight, the child inside it at its own tick 1.
    expect(saved?.state).toMatchObject({
      tick: 0,
      inflight: {
        tick: 1,
        progress: { call_3: { kind: 'sub-agent', name: 'reviewer', state: { tick: 1 } } },
      },
    });

    const b = await runProcess('resume', dir, 'parent-1');
    expect(b.status).toBe('completed');
    // Not from scratch: the parent's model is asked only for its final answer, the child's only
    // for its second tick, whose request holds its first tick's tool result.
    expect([b.parentCalls, b.childCalls]).toEqual([1, 1]);
    expect(b.childPrompt).toContain('ok: 3 passed');
    expect(b.child).toEqual({ status: 'completed', ticks: 1, totalTicks: 2 });
    expect(JSON.stringify(b.timeline)).toContain('Child answer after resume.');
  });
});
