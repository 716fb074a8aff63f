import type { SessionState } from '@agate/core';
import type { CheckpointLedgerEntry } from '@agate/core/guards';
import { describe, expect, it } from 'vitest';
import { checkpointCell, checkpointSection, ledgerLine } from './checkpoints.js';

function stateWith(
  records: Partial<SessionState['guards']['checkpoints']['records']>,
  ledger: CheckpointLedgerEntry[] = [],
) {
  return { guards: { checkpoints: { records, ledger } } } as unknown as SessionState;
}

describe('checkpointCell', () => {
  it('names pending checkpoints first, then the open one, then how many were approved', () => {
    const approved = { state: 'approved' as const, ticks: 2, openedAtTick: 1 };
    const open = { state: 'unlocked' as const, ticks: 0, openedAtTick: 3 };
    const pending = {
      state: 'pending' as const,
      ticks: 1,
      openedAtTick: 3,
      cause: 'budget' as const,
    };
    expect(checkpointCell(stateWith({ a: approved, b: pending }))).toBe('b pending');
    expect(checkpointCell(stateWith({ a: approved, b: open }))).toBe('b open');
    expect(checkpointCell(stateWith({ a: approved, b: approved }))).toBe('2 approved');
    expect(checkpointCell(stateWith({}))).toBe('');
  });

  it('reads a snapshot from before checkpoints existed as having none', () => {
    const old = { guards: {} } as SessionState;
    expect(checkpointCell(old)).toBe('');
    expect(checkpointSection(old)).toEqual(['', 'Checkpoints', '  (none)']);
  });
});

describe('ledgerLine', () => {
  const base = { checkpoint: 'T-1', at: '2026-11-23T10:00:00.000Z', tick: 3 };
  it('says what happened, who, when, what was said, and whether it is signed', () => {
    expect(
      ledgerLine({ ...base, seq: 1, kind: 'submitted', by: 'model', summary: 'Auth done.' }),
    ).toBe('#1  tick 3  T-1  submitted  by model  2026-11-23 10:00:00Z  "Auth done."  unsigned');
    expect(
      ledgerLine({
        ...base,
        seq: 2,
        kind: 'rejected',
        by: 'ana',
        feedback: 'Add tests.',
        answers: 1,
        keyId: 'abcd',
        signature: 'f'.repeat(64),
      }),
    ).toBe(
      '#2  tick 3  T-1  rejected  by ana  2026-11-23 10:00:00Z  answers #1  feedback "Add tests."  signed (key abcd)',
    );
  });
});

describe('checkpointSection', () => {
  it('lists the tool-call ledger under its own heading, each ledger numbered on its own', () => {
    const at = '2026-12-01T10:00:00.000Z';
    const state = {
      guards: {
        checkpoints: {
          records: { 'T-1': { state: 'pending', ticks: 1, openedAtTick: 1, cause: 'submit' } },
          ledger: [{ seq: 1, checkpoint: 'T-1', kind: 'submitted', by: 'model', at, tick: 1 }],
        },
        approvals: {
          calls: [],
          ledger: [
            {
              seq: 1,
              checkpoint: 'c-1',
              kind: 'tool-approval-request',
              by: 'runtime',
              at,
              tick: 2,
              toolName: 'pay',
            },
          ],
        },
      },
    } as unknown as SessionState;
    const lines = checkpointSection(state);
    const cp = lines.indexOf('Checkpoint ledger (1 entry)');
    const tools = lines.indexOf('Tool-call ledger (1 entry)');
    expect(cp).toBeGreaterThan(0);
    expect(tools).toBeGreaterThan(cp);
    expect(lines[cp + 1]).toMatch(/^ {2}#1 {2}tick 1 {2}T-1 {2}submitted/);
    expect(lines[tools + 1]).toMatch(/^ {2}#1 {2}tick 2 {2}c-1 {2}tool-approval-request/);
  });
});
