import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AgateEvent, createFileStore, type RunResult } from '@agate/core';
import { workspaceTracker } from '@agate/example-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { approver, runWithReviews } from './flow.js';
import { GREET_JS, GREET_TEST_JS, offlineModel } from './offline-model.js';
import { createWorkspace } from './workspace.js';

const { workspace, cleanup } = workspaceTracker(createWorkspace);
afterEach(cleanup);

describe('the checkpoint agent, offline', () => {
  it('task 1, submit, awaiting-approval, approve, task 2, submit, approve, finish', async () => {
    const root = await workspace();
    const store = createFileStore(join(root, '.agate/sessions'));
    const events: AgateEvent[] = [];
    const waits: Array<{ checkpoint: string; stored: unknown }> = [];
    const model = offlineModel();
    const approve = approver(store, 'greetings');
    const results = await runWithReviews({
      model,
      root,
      store,
      sessionId: 'greetings',
      onEvent: (e) => events.push(e),
      review: async (checkpoint: string, _result: RunResult) => {
        // The waiting session is already in the store, where a supervisor would find it.
        waits.push({ checkpoint, stored: (await store.load('greetings'))?.state });
        await approve(checkpoint);
      },
    });

    expect(results.map((r) => r.status)).toEqual([
      'awaiting-approval',
      'awaiting-approval',
      'completed',
    ]);
    expect(waits.map((w) => w.checkpoint)).toEqual(['T-1', 'T-2']);
    expect(waits[0]?.stored).toMatchObject({
      status: 'awaiting-approval',
      guards: { checkpoints: { records: { 'T-1': { state: 'pending' } } } },
    });
    expect(model.calls).toHaveLength(3);

    // The early start on task 2, in the same response as the T-1 submit, never ran ...
    expect(events.filter((e) => e.type === 'tool:refused')).toEqual([
      expect.objectContaining({
        toolName: 'write_file',
        message: 'Execution blocked. Supervisor must approve checkpoint T-1.',
      }),
    ]);
    // ... and the real work is on disk.
    expect(await readFile(join(root, 'greet.js'), 'utf8')).toBe(GREET_JS);
    expect(await readFile(join(root, 'greet.test.js'), 'utf8')).toBe(GREET_TEST_JS);

    // The request after the approval carries the reviewer's note and the second task.
    const second = JSON.stringify(model.calls[1]?.prompt);
    expect(second).toContain(
      'Checkpoint T-1 was approved by reviewer. Note from the supervisor: greet() looks right.',
    );
    expect(second).toContain('Checkpoint T-2 is open (2 of 2)');

    const last = results.at(-1)!;
    expect(last.checkpoints).toEqual({ 'T-1': 'approved', 'T-2': 'approved' });
    expect(last.checkpointLedger.map((e) => `${e.kind} ${e.checkpoint} ${e.by}`)).toEqual([
      'submitted T-1 model',
      'approved T-1 reviewer',
      'submitted T-2 model',
      'approved T-2 reviewer',
    ]);
  });
});
