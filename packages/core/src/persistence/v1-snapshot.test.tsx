/**
 * Snapshots written by version 1 (fixtures made once with the code of that time, see
 * `__fixtures__/v1-agent.tsx`) still load, and the restored session goes on: the
 * pending checkpoint is approved and the run finishes past every guard.
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_VERSION } from '../entries/stores.js';
import {
  approveCheckpoint,
  createFileStore,
  createMemoryStore,
  createSession,
  type SessionSnapshot,
} from '../index.js';
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
    expect(session.state.guards.continue.stepNumber).toBeGreaterThanOrEqual(4);
  });

  it('is migrated on load: every family field under state.guards, written back as the current version', () => {
    const snapshot = fixture('v1-pending-checkpoint.json');
    const v1 = snapshot.state as Record<string, unknown>;
    const session = createSession(<V1Agent />, {
      model: scriptedModel([]),
      snapshot,
      store: createMemoryStore(),
    });
    const { guards } = session.state;
    expect(guards.checkpoints).toEqual({ records: v1.checkpoints, ledger: v1.checkpointLedger });
    expect(guards.gates).toEqual({ knobs: v1.knobs, gates: v1.gates });
    expect(guards.continue).toEqual(v1.progress);
    expect(guards.todos).toEqual(v1.todos);
    expect(guards.phase).toEqual(v1.phase);
    // Slices version 1 did not have yet start at their initial values.
    expect(guards.approvals).toEqual({ calls: [], ledger: [] });
    expect(guards.refusals).toEqual({});
    for (const field of [
      'knobs',
      'gates',
      'progress',
      'checkpoints',
      'checkpointLedger',
      'todos',
      'phase',
    ]) {
      expect(session.state).not.toHaveProperty(field);
    }
    expect(session.state.timeline).toEqual(v1.timeline);
    expect(session.snapshot().version).toBe(SNAPSHOT_VERSION);
  });

  it('through the file store: approved from the store by a supervisor, then the run finishes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agate-v1-'));
    try {
      await copyFile(
        join(import.meta.dirname, '__fixtures__', 'v1-pending-checkpoint.json'),
        join(dir, 'v1-fixture.json'),
      );
      const store = createFileStore(dir);
      const loaded = await store.load('v1-fixture');
      expect(loaded?.version).toBe(SNAPSHOT_VERSION);
      await approveCheckpoint(store, 'v1-fixture', 'fix', { by: 'ana', note: 'fine' });
      // The supervisor's save wrote the migrated layout.
      const written = JSON.parse(await readFile(join(dir, 'v1-fixture.json'), 'utf8'));
      expect(written.version).toBe(SNAPSHOT_VERSION);
      expect(written.state.guards.checkpoints.records.fix.state).toBe('approved');
      expect(written.state).not.toHaveProperty('checkpointLedger');

      const session = createSession(<V1Agent />, {
        model: scriptedModel(TURNS_AFTER),
        snapshot: (await store.load('v1-fixture'))!,
        store,
      });
      const result = await session.run();
      expect(result.status).toBe('completed');
      expect(result.checkpoints).toEqual({ fix: 'approved' });
      expect(result.todos?.map((t) => t.status)).toEqual(['completed', 'completed']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
