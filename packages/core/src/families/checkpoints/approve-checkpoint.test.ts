import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { produce } from 'immer';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApprovalKeyError,
  CheckpointDecisionError,
  CheckpointNotPendingError,
  UnknownCheckpointError,
  UnknownSessionError,
} from '../../approvals/approval-errors.js';
import { APPROVAL_KEY_ENV } from '../../approvals/approval-signing.js';
import { markPending } from '../../approvals/decision-ledger.js';
import { createInitialState } from '../../guard-seam/initial-state.js';
import { createFileStore } from '../../persistence/file-store.js';
import { SnapshotError } from '../../persistence/persistence-errors.js';
import type { SessionStore } from '../../persistence/session-store.js';
import { createSnapshot } from '../../persistence/snapshot.js';
import { approveCheckpoint, rejectCheckpoint } from './approve-checkpoint.js';

const KEY = 'supervisor-test-key';

async function storeWithPending(key?: string): Promise<{ store: SessionStore; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'agate-supervisor-'));
  dirs.push(dir);
  const store = createFileStore(dir);
  const state = produce(createInitialState('s1'), (draft) => {
    draft.tick = 4;
    draft.status = 'awaiting-approval';
    markPending(
      draft,
      'T-1',
      { cause: 'submit', tick: 4, by: 'model', summary: 'auth module done', reason: 'submitted' },
      { sessionId: 's1', key },
    );
  });
  await store.save(createSnapshot('s1', state, 'awaiting-approval'));
  return { store, file: join(dir, 's1.json') };
}

const dirs: string[] = [];
beforeEach(() => {
  vi.stubEnv(APPROVAL_KEY_ENV, '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('approveCheckpoint / rejectCheckpoint on a stored session', () => {
  it('approves: the stored state is approved, the entry recorded and returned', async () => {
    const { store } = await storeWithPending();
    const entry = await approveCheckpoint(store, 's1', 'T-1', { by: 'ana', note: 'ship it' });
    expect(entry).toMatchObject({ kind: 'approved', by: 'ana', note: 'ship it', answers: 1 });
    const saved = await store.load('s1');
    expect(saved?.state).toMatchObject({
      status: 'idle',
      guards: {
        checkpoints: {
          records: { 'T-1': { state: 'approved' } },
          ledger: [{ kind: 'submitted' }, { kind: 'approved', by: 'ana' }],
        },
      },
    });
  });

  it('rejects with feedback: unlocked again', async () => {
    const { store } = await storeWithPending();
    await rejectCheckpoint(store, 's1', 'T-1', { by: 'ana', feedback: 'missing tests' });
    const saved = await store.load('s1');
    expect(saved?.state).toMatchObject({
      guards: {
        checkpoints: {
          records: { 'T-1': { state: 'unlocked', ticks: 0 } },
          ledger: [{ kind: 'submitted' }, { kind: 'rejected', feedback: 'missing tests' }],
        },
      },
    });
  });

  it('signs with the key, or with AGATE_APPROVAL_KEY', async () => {
    const { store } = await storeWithPending(KEY);
    vi.stubEnv(APPROVAL_KEY_ENV, KEY);
    const entry = await approveCheckpoint(store, 's1', 'T-1', { by: 'ana' });
    expect(entry.signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['an unknown session', 'nobody', 'T-1', { by: 'ana' }, UnknownSessionError],
    ['an unknown checkpoint', 's1', 'T-7', { by: 'ana' }, UnknownCheckpointError],
    ['a decision without a name', 's1', 'T-1', { by: '' }, CheckpointDecisionError],
    ['a bad key', 's1', 'T-1', { by: 'ana', key: 'wrong' }, ApprovalKeyError],
    ['a missing key', 's1', 'T-1', { by: 'ana' }, ApprovalKeyError],
  ] as const)('fails on %s and leaves the file as it was', async (_, session, id, input, type) => {
    const { store, file } = await storeWithPending(KEY);
    const before = await readFile(file, 'utf8');
    await expect(approveCheckpoint(store, session, id, input)).rejects.toThrow(type);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('fails on a checkpoint that is not pending (approved twice)', async () => {
    const { store, file } = await storeWithPending();
    await approveCheckpoint(store, 's1', 'T-1', { by: 'ana' });
    const before = await readFile(file, 'utf8');
    await expect(approveCheckpoint(store, 's1', 'T-1', { by: 'bo' })).rejects.toThrow(
      CheckpointNotPendingError,
    );
    await expect(
      rejectCheckpoint(store, 's1', 'T-1', { by: 'bo', feedback: 'no' }),
    ).rejects.toThrow(CheckpointNotPendingError);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('approves a checkpoint a hand-edited file claims is approved (it counts as pending)', async () => {
    const { store, file } = await storeWithPending(KEY);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    saved.state.guards.checkpoints.records['T-1'].state = 'approved';
    await writeFile(file, JSON.stringify(saved));
    const entry = await approveCheckpoint(store, 's1', 'T-1', { by: 'ana', key: KEY });
    expect(entry).toMatchObject({ kind: 'approved', answers: 1 });
  });

  it('leaves other checkpoints alone when the supervisor signs and the session did not', async () => {
    const { store } = await storeWithPending();
    await approveCheckpoint(store, 's1', 'T-1', { by: 'ana' });
    const loaded = await store.load('s1');
    const withT2 = produce(loaded!.state as ReturnType<typeof createInitialState>, (draft) => {
      markPending(
        draft,
        'T-2',
        { cause: 'submit', tick: 5, by: 'model', summary: 'T-2 done', reason: 'submitted' },
        { sessionId: 's1', key: undefined },
      );
    });
    await store.save(createSnapshot('s1', withT2));
    await approveCheckpoint(store, 's1', 'T-2', { by: 'ana', key: KEY });
    expect((await store.load('s1'))?.state).toMatchObject({
      guards: {
        checkpoints: { records: { 'T-1': { state: 'approved' }, 'T-2': { state: 'approved' } } },
      },
    });
  });

  it('fails on a corrupt file with a SnapshotError', async () => {
    const { store, file } = await storeWithPending();
    await writeFile(file, '{"format": "agate.session", ');
    await expect(approveCheckpoint(store, 's1', 'T-1', { by: 'ana' })).rejects.toThrow(
      SnapshotError,
    );
    expect(await readFile(file, 'utf8')).toBe('{"format": "agate.session", ');
  });

  it('treats a snapshot from before checkpoints as having none', async () => {
    const { store } = await storeWithPending();
    const old = createInitialState('old');
    const { checkpoints: _c, ...guards } = old.guards;
    const rest = { ...old, guards };
    await store.save(createSnapshot('old', rest));
    await expect(approveCheckpoint(store, 'old', 'T-1', { by: 'ana' })).rejects.toThrow(
      /has no checkpoints yet/,
    );
  });
});
