import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { createInitialState } from '../guard-seam/initial-state.js';
import type { SessionState } from '../state/session-state.js';
import {
  ApprovalKeyError,
  CheckpointDecisionError,
  CheckpointNotPendingError,
  UnknownCheckpointError,
} from './approval-errors.js';
import { keyIdOf, verifyEntry } from './approval-signing.js';
import {
  decide,
  findCorrections,
  latestRequest,
  ledgerStatus,
  markPending,
} from './decision-ledger.js';

const KEY = 'ledger-test-key';

function submitted(id = 'T-1', key?: string): SessionState {
  return produce(createInitialState('s1'), (draft) => {
    draft.tick = 3;
    draft.status = 'awaiting-approval';
    markPending(
      draft,
      id,
      { cause: 'submit', tick: 3, by: 'model', summary: 'auth done', reason: 'submitted' },
      { sessionId: 's1', key },
    );
  });
}

describe('markPending', () => {
  it('records the submission and makes the checkpoint pending', () => {
    const state = submitted();
    expect(state.guards.checkpoints.records['T-1']).toMatchObject({
      state: 'pending',
      cause: 'submit',
    });
    expect(state.guards.checkpoints.ledger).toEqual([
      expect.objectContaining({
        seq: 1,
        checkpoint: 'T-1',
        kind: 'submitted',
        by: 'model',
        tick: 3,
        summary: 'auth done',
      }),
    ]);
    expect(state.guards.checkpoints.ledger[0]?.signature).toBeUndefined();
  });

  it('records a second submission while pending without a second transition', () => {
    let becamePending = true;
    const state = produce(submitted(), (draft) => {
      becamePending = markPending(
        draft,
        'T-1',
        { cause: 'submit', tick: 3, by: 'model', summary: 'again', reason: 'submitted' },
        { sessionId: 's1', key: undefined },
      ).becamePending;
    });
    expect(becamePending).toBe(false);
    expect(state.guards.checkpoints.ledger.map((e) => e.summary)).toEqual(['auth done', 'again']);
    expect(latestRequest(state.guards.checkpoints.ledger, 'T-1')?.seq).toBe(2);
  });
});

describe('decide', () => {
  it('approves: approved, a signed entry answering the submission, the session idle', () => {
    const state = produce(submitted('T-1', KEY), (draft) => {
      decide(
        draft,
        'T-1',
        { kind: 'approved', by: 'ana', note: 'looks good' },
        {
          sessionId: 's1',
          key: KEY,
        },
      );
    });
    const [request, approval] = state.guards.checkpoints.ledger;
    expect(state.guards.checkpoints.records['T-1']?.state).toBe('approved');
    expect(approval).toMatchObject({ kind: 'approved', by: 'ana', note: 'looks good', answers: 1 });
    expect(approval?.keyId).toBe(keyIdOf(KEY));
    expect(verifyEntry(KEY, 's1', approval!, request)).toEqual({ ok: true });
    expect(verifyEntry(KEY, 'other-session', approval!, request).ok).toBe(false);
    expect(state.status).toBe('idle');
    expect(ledgerStatus(state.guards.checkpoints.ledger, 'T-1', 's1', { key: KEY })).toEqual({
      status: 'approved',
    });
  });

  it('rejects: unlocked again with a fresh budget, the feedback recorded', () => {
    const base = produce(submitted(), (draft) => {
      draft.guards.checkpoints.records['T-1']!.ticks = 9;
    });
    const state = produce(base, (draft) => {
      decide(
        draft,
        'T-1',
        { kind: 'rejected', by: 'ana', feedback: 'add tests' },
        {
          sessionId: 's1',
          key: undefined,
        },
      );
    });
    expect(state.guards.checkpoints.records['T-1']).toEqual({
      state: 'unlocked',
      ticks: 0,
      openedAtTick: 4,
    });
    expect(state.guards.checkpoints.ledger[1]).toMatchObject({
      kind: 'rejected',
      feedback: 'add tests',
    });
  });

  it.each([
    ['an unknown checkpoint', 'T-9', { kind: 'approved', by: 'ana' }, UnknownCheckpointError],
    ['no name', 'T-1', { kind: 'approved', by: ' ' }, CheckpointDecisionError],
    [
      'empty feedback',
      'T-1',
      { kind: 'rejected', by: 'ana', feedback: '' },
      CheckpointDecisionError,
    ],
  ] as const)('refuses %s and changes nothing', (_, id, decision, type) => {
    const state = submitted();
    expect(() =>
      produce(state, (draft) => {
        decide(draft, id, decision, { sessionId: 's1', key: undefined });
      }),
    ).toThrow(type);
  });

  it('refuses a checkpoint that is not pending', () => {
    const approved = produce(submitted(), (draft) => {
      decide(draft, 'T-1', { kind: 'approved', by: 'ana' }, { sessionId: 's1', key: undefined });
    });
    expect(() =>
      produce(approved, (draft) => {
        decide(draft, 'T-1', { kind: 'approved', by: 'bo' }, { sessionId: 's1', key: undefined });
      }),
    ).toThrow(/"T-1" is approved, not pending/);
  });

  it('refuses a missing or different key when the ledger is signed', () => {
    const state = submitted('T-1', KEY);
    const attempt = (key: string | undefined) => () =>
      produce(state, (draft) => {
        decide(draft, 'T-1', { kind: 'approved', by: 'ana' }, { sessionId: 's1', key });
      });
    expect(attempt(undefined)).toThrow(ApprovalKeyError);
    expect(attempt('another-key')).toThrow(/not the one session "s1" signs with/);
    expect(attempt('')).toThrow(/empty/);
    expect(attempt(KEY)).not.toThrow();
  });

  it('throws CheckpointNotPendingError for a pending record with no request in the ledger', () => {
    const edited = produce(createInitialState('s1'), (draft) => {
      draft.guards.checkpoints.records['T-1'] = { state: 'pending', ticks: 0, openedAtTick: 1 };
    });
    expect(() =>
      produce(edited, (draft) => {
        decide(draft, 'T-1', { kind: 'approved', by: 'ana' }, { sessionId: 's1', key: undefined });
      }),
    ).toThrow(CheckpointNotPendingError);
  });
});

describe('findCorrections (a restored session)', () => {
  const approvedWithKey = produce(submitted('T-1', KEY), (draft) => {
    decide(draft, 'T-1', { kind: 'approved', by: 'ana' }, { sessionId: 's1', key: KEY });
  });

  it('accepts a validly signed approval', () => {
    expect(findCorrections(approvedWithKey, 's1', { key: KEY })).toEqual([]);
  });

  it('makes a state flipped to approved without an approval pending', () => {
    const flipped = produce(submitted('T-1', KEY), (draft) => {
      draft.guards.checkpoints.records['T-1']!.state = 'approved';
    });
    expect(findCorrections(flipped, 's1', { key: KEY })).toEqual([
      expect.objectContaining({ id: 'T-1', from: 'approved', to: 'pending' }),
    ]);
    // Without a key too: there is no approval entry at all.
    expect(findCorrections(flipped, 's1', {})).toHaveLength(1);
  });

  it('makes an approval copied to another checkpoint pending (with a key)', () => {
    const copied = produce(approvedWithKey, (draft) => {
      markPending(
        draft,
        'T-2',
        { cause: 'submit', tick: 5, by: 'model', summary: 'x', reason: 'submitted' },
        { sessionId: 's1', key: KEY },
      );
      const approval = draft.guards.checkpoints.ledger[1]!;
      draft.guards.checkpoints.ledger.push({ ...approval, checkpoint: 'T-2', answers: 3, seq: 4 });
      draft.guards.checkpoints.records['T-2']!.state = 'approved';
    });
    const corrections = findCorrections(copied, 's1', { key: KEY });
    expect(corrections).toEqual([expect.objectContaining({ id: 'T-2', to: 'pending' })]);
    expect(corrections[0]?.why).toMatch(/signature does not match/);
  });

  it('makes an approval taken from another session pending', () => {
    expect(findCorrections(approvedWithKey, 'another-session', { key: KEY })[0]?.why).toMatch(
      /does not match/,
    );
  });

  it('makes an unsigned approval pending when the session has a key', () => {
    const unsigned = produce(submitted(), (draft) => {
      decide(draft, 'T-1', { kind: 'approved', by: 'ana' }, { sessionId: 's1', key: undefined });
    });
    expect(findCorrections(unsigned, 's1', {})).toEqual([]);
    expect(findCorrections(unsigned, 's1', { key: KEY })[0]?.why).toMatch(/not signed/);
  });

  it('makes a pending checkpoint flipped to unlocked pending again', () => {
    const flipped = produce(submitted(), (draft) => {
      draft.guards.checkpoints.records['T-1']!.state = 'unlocked';
    });
    expect(findCorrections(flipped, 's1', {})).toEqual([
      expect.objectContaining({ id: 'T-1', from: 'unlocked', to: 'pending' }),
    ]);
  });
});
