import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from '@agate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agateInProcess } from './__fixtures__/agate-in-process.js';
import { fixture } from './__fixtures__/store-fixture.js';
import { ExitCode } from './errors.js';

const AGENT = fixture('subagent-agent.tsx');

async function agate(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await agateInProcess(args);
  return { code, out: stdout, err: stderr };
}

describe('a checkpoint inside a sub-agent, decided from the CLI', () => {
  let store: string;
  beforeAll(async () => {
    store = await mkdtemp(join(tmpdir(), 'agate-cli-subagent-'));
  });
  afterAll(() => rm(store, { recursive: true, force: true }));

  it('agate run waits naming the path; agate approve takes the path; --resume finishes', async () => {
    const first = await agate(['run', AGENT, '--store', store, '--id', 'sub-1']);
    expect(first.code).toBe(ExitCode.waiting);
    expect(first.out).toContain('status: awaiting-approval');
    expect(first.out).toContain('reviewer#call_3 › T-1');

    const wrong = await agate([
      'approve',
      'sub-1',
      'reviewer#call_9 › T-1',
      '--by',
      'ana',
      '--store',
      store,
    ]);
    expect(wrong.code).toBe(ExitCode.notFound);
    expect(wrong.err).toContain('Running there: reviewer#call_3');

    const approved = await agate([
      'approve',
      'sub-1',
      'reviewer#call_3 › T-1',
      '--by',
      'ana',
      '--store',
      store,
    ]);
    expect(approved.err).toBe('');
    expect(approved.code).toBe(ExitCode.ok);
    expect(approved.out).toContain(
      'Approved checkpoint reviewer#call_3 › T-1 of session sub-1 by ana',
    );
    const saved = await createFileStore(store).load('sub-1');
    expect(saved?.state).toMatchObject({
      inflight: {
        progress: {
          call_3: {
            state: { guards: { checkpoints: { records: { 'T-1': { state: 'approved' } } } } },
          },
        },
      },
    });

    const resumed = await agate(['run', AGENT, '--store', store, '--resume', 'sub-1']);
    expect(resumed.err).toBe('');
    expect(resumed.code).toBe(ExitCode.ok);
    expect(resumed.out).toContain('[reviewer#call_3] model: Review approved: the change is fine.');
    expect(resumed.out).toContain('status: completed');
  });
});
