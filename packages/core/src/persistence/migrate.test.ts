import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateState, SNAPSHOT_VERSION } from './migrate.js';
import { SnapshotError } from './persistence-errors.js';

const v1Fixture = () =>
  JSON.parse(
    readFileSync(join(import.meta.dirname, '__fixtures__', 'v1-pending-checkpoint.json'), 'utf8'),
  ).state as Record<string, unknown>;

describe('migrateState', () => {
  it('leaves a state of the current layout as it is', () => {
    const state = { id: 's', guards: { gates: { knobs: {}, gates: {} } } };
    expect(migrateState(state, SNAPSHOT_VERSION)).toBe(state);
  });

  it('version 1: every family field moves under state.guards, the runtime fields stay', () => {
    const v1 = v1Fixture();
    const before = structuredClone(v1);
    const v2 = migrateState(v1, 1) as Record<string, unknown>;
    // The input is not changed.
    expect(v1).toEqual(before);
    expect(Object.keys(v2).sort()).toEqual(
      [
        'id',
        'tick',
        'timeline',
        'usage',
        'toolCalls',
        'notices',
        'text',
        'status',
        'reason',
        'guards',
      ].sort(),
    );
    expect(v2.timeline).toEqual(v1.timeline);
    expect(v2.guards).toEqual({
      gates: { knobs: v1.knobs, gates: v1.gates },
      continue: v1.progress,
      todos: v1.todos,
      phase: v1.phase,
      checkpoints: { records: v1.checkpoints, ledger: v1.checkpointLedger },
    });
  });

  it('version 1: defineGuard guards keep their slices; tool approvals and refusals move too', () => {
    const v2 = migrateState(
      {
        id: 's',
        knobs: { mode: 'plan' },
        checkpointLedger: [{ seq: 1 }],
        toolApprovals: [{ id: 'c-1', state: 'pending' }],
        guards: { budget: { spent: 3 } },
        guardRefusals: { budget: 2 },
      },
      1,
    );
    expect(v2).toEqual({
      id: 's',
      guards: {
        budget: { spent: 3 },
        // A slice made of two version-1 fields gets the missing one at its initial value.
        gates: { knobs: { mode: 'plan' }, gates: {} },
        checkpoints: { records: {}, ledger: [{ seq: 1 }] },
        approvals: { calls: [{ id: 'c-1', state: 'pending' }], ledger: [] },
        refusals: { budget: 2 },
      },
    });
  });

  it('version 1: the states of running sub-agents in the in-flight tick are migrated with it', () => {
    const child = {
      id: 'child',
      checkpoints: { 'T-1': { state: 'pending' } },
      checkpointLedger: [],
    };
    const v2 = migrateState(
      {
        id: 'parent',
        inflight: {
          tick: 3,
          progress: { call_1: { kind: 'sub-agent', name: 'r', state: child }, call_2: 7 },
        },
      },
      1,
    ) as { inflight: { progress: Record<string, unknown> } };
    expect(v2.inflight.progress).toEqual({
      call_1: {
        kind: 'sub-agent',
        name: 'r',
        state: {
          id: 'child',
          guards: { checkpoints: { records: { 'T-1': { state: 'pending' } }, ledger: [] } },
        },
      },
      call_2: 7,
    });
  });

  it('version 2: tool-call entries move to their own ledger, renumbered, keeping what they were signed as', () => {
    const shared = [
      { seq: 1, checkpoint: 'T-1', kind: 'submitted', signature: 'a' },
      { seq: 2, checkpoint: 'c-1', kind: 'tool-approval-request', signature: 'b' },
      { seq: 3, checkpoint: 'T-1', kind: 'approved', answers: 1, signature: 'c' },
      { seq: 4, checkpoint: 'c-1', kind: 'tool-approved', answers: 2, signature: 'd' },
      { seq: 5, checkpoint: 'c-1', kind: 'tool-executed', answers: 4 },
      // Answers an entry that is not a tool entry: left unmatched, as it was.
      { seq: 6, checkpoint: 'c-2', kind: 'tool-denied', answers: 3 },
    ];
    const v2 = {
      id: 's',
      guards: {
        checkpoints: { records: {}, ledger: shared },
        approvals: { calls: [{ id: 'c-1', state: 'approved' }] },
      },
    };
    const before = structuredClone(v2);
    const v3 = migrateState(v2, 2) as { guards: Record<string, Record<string, unknown>> };
    expect(v2).toEqual(before);
    expect(v3.guards.checkpoints!.ledger).toEqual([shared[0], shared[2]]);
    expect(v3.guards.approvals).toEqual({
      calls: [{ id: 'c-1', state: 'approved' }],
      ledger: [
        {
          seq: 1,
          checkpoint: 'c-1',
          kind: 'tool-approval-request',
          signature: 'b',
          signedAs: { ledger: 'checkpoints', seq: 2 },
        },
        {
          seq: 2,
          checkpoint: 'c-1',
          kind: 'tool-approved',
          answers: 1,
          signature: 'd',
          signedAs: { ledger: 'checkpoints', seq: 4, answers: 2 },
        },
        {
          seq: 3,
          checkpoint: 'c-1',
          kind: 'tool-executed',
          answers: 2,
          signedAs: { ledger: 'checkpoints', seq: 5, answers: 4 },
        },
        {
          seq: 4,
          checkpoint: 'c-2',
          kind: 'tool-denied',
          signedAs: { ledger: 'checkpoints', seq: 6, answers: 3 },
        },
      ],
    });
  });

  it('version 2: a session without tool calls gets an empty tool-call ledger; sub-agents move too', () => {
    const child = {
      id: 'child',
      guards: {
        checkpoints: {
          records: {},
          ledger: [{ seq: 1, checkpoint: 'k', kind: 'tool-approval-request' }],
        },
        approvals: { calls: [] },
      },
    };
    const v3 = migrateState(
      {
        id: 'parent',
        guards: { checkpoints: { records: {}, ledger: [] }, approvals: { calls: [] } },
        inflight: { tick: 1, progress: { call_1: { kind: 'sub-agent', state: child } } },
      },
      2,
    ) as {
      guards: Record<string, unknown>;
      inflight: { progress: Record<string, { state: { guards: Record<string, unknown> } }> };
    };
    expect(v3.guards.approvals).toEqual({ calls: [], ledger: [] });
    expect(v3.inflight.progress.call_1!.state.guards).toEqual({
      checkpoints: { records: {}, ledger: [] },
      approvals: {
        calls: [],
        ledger: [
          {
            seq: 1,
            checkpoint: 'k',
            kind: 'tool-approval-request',
            signedAs: { ledger: 'checkpoints', seq: 1 },
          },
        ],
      },
    });
  });

  it('version 1: a defineGuard guard named like a family is refused, naming it', () => {
    const attempt = () => migrateState({ id: 's', guards: { todos: { mine: true } } }, 1, 'f.json');
    expect(attempt).toThrow(SnapshotError);
    expect(attempt).toThrow(/defineGuard guard "todos" has the name of a built-in guard family/);
    try {
      attempt();
    } catch (error) {
      expect((error as SnapshotError).path).toBe('f.json');
    }
  });

  it('what is not an object is left for the shape check', () => {
    expect(migrateState('text', 1)).toBe('text');
    const odd = { id: 's', guards: 'not an object' };
    expect(migrateState(odd, 1)).toBe(odd);
  });

  it.each([0, SNAPSHOT_VERSION + 1])('refuses version %s', (version) => {
    expect(() => migrateState({}, version)).toThrow(
      `snapshot version ${version} is not supported by this version of @agate/core (expects ${SNAPSHOT_VERSION})`,
    );
  });
});
