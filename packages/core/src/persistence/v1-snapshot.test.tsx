/**
 * Snapshots written by version 1 (fixtures made with the code of that time, see
 * `__fixtures__/make-v1-snapshots.tsx`) still load, and the restored session goes on: the
 * pending checkpoint is approved and the run finishes past every guard.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, createSession, type SessionSnapshot } from '../index.js';
import { TURNS_AFTER, V1Agent } from './__fixtures__/v1-agent.js';

const fixture = (name: string): SessionSnapshot =>
  JSON.parse(readFileSync(join(import.meta.dirname, '__fixtures__', name), 'utf8'));

describe('a version-1 snapshot', () => {
  it('with gates, todos, phase gates, a ContinueGate and a pending checkpoint: approved, the run finishes', async () => {
    const snapshot = fixture('v1-pending-checkpoint.json');
    expect(snapshot.version).toBe(1);
    const model = scriptedModel(TURNS_AFTER);
    const session = createSession(<V1Agent />, { model, snapshot, store: createMemoryStore() });
    expect(session.id).toBe('v1-fixture');
    expect(session.state.tick).toBe(4);

    // Still pending after the restore: a run without approval makes no model call.
    const waiting = await session.run();
    expect(waiting.status).toBe('awaiting-approval');
    expect(waiting.checkpoints).toEqual({ fix: 'pending' });
    expect(model.calls).toHaveLength(0);

    session.approve('fix', { by: 'ana', note: 'fine' });
    const result = await session.run();
    expect(result.reason).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.text).toBe('add() is fixed and the tests pass.');
    expect(result.checkpoints).toEqual({ fix: 'approved' });
    expect(result.gates).toEqual({ verification: 'inactive' });
    expect(result.todos?.map((t) => t.status)).toEqual(['completed', 'completed']);
    expect(result.phase?.readiness).toBe(true);
    expect(result.totalTicks).toBe(10);
    // The ContinueGate's budget carried over: the steps before the restore still count.
    expect(session.state.progress.stepNumber).toBeGreaterThanOrEqual(4);
  });
});
