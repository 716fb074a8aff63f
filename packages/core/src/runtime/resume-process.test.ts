import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptArgs } from '../__fixtures__/bundled-script.js';
import { createFileStore } from '../persistence/file-store.js';
import {
  FINAL_TICK,
  PAUSE_AFTER_TICK,
  ResumeAgent,
  resumeModel,
} from './__fixtures__/resume-agent.js';
import { createSession, type RunResult } from './session.js';

const SCRIPT = fileURLToPath(new URL('./__fixtures__/resume-process.tsx', import.meta.url));
/** Bundled once (__fixtures__/bundled-script.ts): no tsx transform at each start. */
const SCRIPT_ARGS = await scriptArgs(SCRIPT);
/** packages/core: tsx is its devDependency (the sources through tsx, AGATE_TEST_SOURCE_CLI=1). */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CHILD_TIMEOUT_MS = 30_000;

interface ChildOutcome {
  status: RunResult['status'];
  reason?: string;
  ticks: number;
  totalTicks: number;
  modelCalls: number;
  timeline: RunResult['timeline'];
}

/** Runs one side of the test in a fresh Node process. */
function runChild(mode: 'pause' | 'resume', dir: string, id: string): Promise<ChildOutcome> {
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
          resolve(JSON.parse(stdout) as ChildOutcome);
        } catch {
          reject(new Error(`${mode} process printed no result:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

/** The same agent in this process: paused, then resumed on the same session object. */
async function singleProcessRun() {
  const model = resumeModel();
  const session = createSession(createElement(ResumeAgent), { model });
  const paused = await session.run();
  const finished = await session.run();
  session.dispose();
  return { paused, finished, modelCalls: model.calls.length };
}

describe('a session paused in one process resumes in another', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-resume-process-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('and finishes with the timeline a single-process run has', {
    timeout: 2 * CHILD_TIMEOUT_MS,
  }, async () => {
    const reference = await singleProcessRun();
    expect(reference.paused.status).toBe('paused');
    expect(reference.finished.status).toBe('completed');

    // Process A runs until the ContinueGate pauses it; the pause is saved to the file store.
    const a = await runChild('pause', dir, 'cross-process');
    expect(a.status).toBe('paused');
    expect(a.reason).toBe(reference.paused.reason);
    expect([a.ticks, a.modelCalls]).toEqual([PAUSE_AFTER_TICK, PAUSE_AFTER_TICK]);
    const saved = await createFileStore(dir).load('cross-process');
    expect(saved?.label).toBe('paused');
    expect(saved?.state).toMatchObject({ status: 'paused', tick: PAUSE_AFTER_TICK });

    // Process B loads it, resumes, and finishes: its model is called for the remaining ticks.
    const b = await runChild('resume', dir, 'cross-process');
    expect(b.status).toBe('completed');
    expect(b.ticks).toBe(FINAL_TICK - PAUSE_AFTER_TICK);
    expect(b.totalTicks).toBe(FINAL_TICK);
    expect(b.modelCalls).toBe(FINAL_TICK - PAUSE_AFTER_TICK);
    expect(a.modelCalls + b.modelCalls).toBe(reference.modelCalls);

    expect(b.timeline).toEqual(JSON.parse(JSON.stringify(reference.finished.timeline)));
    expect(b.timeline).toHaveLength(2 * (FINAL_TICK - 1) + 1);
  });
});
