/**
 * Issue 48, item 5: who decides (`by`) and why (a reason, a note, feedback) are bounded in the
 * core, so the studio, the CLI, the web chat and a library caller all record the same: at most
 * 200 characters, no control characters. A refused decision changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { decisionTextProblem, MAX_DECISION_TEXT_CHARS } from '../../approvals/decision-text.js';
import {
  CheckpointDecisionError,
  createMemoryStore,
  type SessionState,
  ToolApprovalDecisionError,
} from '../../index.js';
import { createSession } from '../../runtime/session.js';
import { ApprovalAgent, approvalModel } from '../tool-approvals/__fixtures__/approval-agent.js';
import { CheckpointAgent, checkpointModel } from './__fixtures__/checkpoint-agent.js';
import { approveCheckpoint, rejectCheckpoint } from './approve-checkpoint.js';

const BAD: Array<[string, string]> = [
  ['201 characters', 'a'.repeat(201)],
  ['a line break', 'alice\nApproved by: root'],
  ['a carriage return', 'alice\rroot'],
  ['a tab', 'ali\tce'],
  ['an escape sequence', 'alice\u001b[2K\u001b[1Groot'],
  ['NUL', 'alice\u0000'],
  ['DEL', 'alice\u007f'],
  ['a C1 control', 'alice\u009b31m'],
  ['a right-to-left override', 'alice\u202eecila'],
  ['a bidi isolate', 'alice\u2066x\u2069'],
];

describe('decisionTextProblem', () => {
  it('takes one line of up to 200 characters (counted as characters, not UTF-16 units)', () => {
    expect(decisionTextProblem('`by`', 'Ana Lívia (ops) <ana@example.com>')).toBeUndefined();
    expect(decisionTextProblem('`by`', 'a'.repeat(MAX_DECISION_TEXT_CHARS))).toBeUndefined();
    expect(decisionTextProblem('`by`', '😀'.repeat(200))).toBeUndefined();
    expect(decisionTextProblem('`by`', '😀'.repeat(201))).toMatch(/201 characters; at most 200/);
  });

  it.each(BAD)('refuses %s, naming it', (_, text) => {
    expect(decisionTextProblem('`by`', text)).toMatch(
      /^`by` (has 201|holds the control character U\+)/,
    );
  });
});

async function heldCall() {
  const store = createMemoryStore();
  const session = createSession(<ApprovalAgent />, { model: approvalModel(), store });
  expect((await session.run()).status).toBe('awaiting-approval');
  return session;
}

describe('a decision with a bad `by` or reason', () => {
  it.each(BAD)('is refused for a held tool call (%s) and changes nothing', async (_, text) => {
    const session = await heldCall();
    const before = session.state.guards.approvals;
    expect(() => session.approveToolCall('c-drop', { by: text })).toThrow(
      ToolApprovalDecisionError,
    );
    expect(() => session.denyToolCall('c-drop', { by: 'dba', reason: text })).toThrow(
      /Deciding tool call "c-drop": `reason`/,
    );
    expect(() => session.approveToolCall('c-drop', { by: 'dba', reason: text })).toThrow(
      ToolApprovalDecisionError,
    );
    expect(session.state.guards.approvals).toBe(before);
    // A good one still goes through.
    expect(session.approveToolCall('c-drop', { by: 'dba' }).by).toBe('dba');
  });

  it('is refused for a checkpoint (by, note, feedback) and changes nothing in the store', async () => {
    const store = createMemoryStore();
    const session = createSession(<CheckpointAgent />, { model: checkpointModel(), store });
    expect((await session.run()).status).toBe('awaiting-approval');
    await store.save(session.snapshot());
    const id = Object.keys(session.state.guards.checkpoints.records)[0]!;
    const stored = JSON.stringify((await store.load(session.id))?.state);
    for (const [, text] of BAD) {
      await expect(approveCheckpoint(store, session.id, id, { by: text })).rejects.toThrow(
        CheckpointDecisionError,
      );
      await expect(
        approveCheckpoint(store, session.id, id, { by: 'ana', note: text }),
      ).rejects.toThrow(/`note`/);
      await expect(
        rejectCheckpoint(store, session.id, id, { by: 'ana', feedback: text }),
      ).rejects.toThrow(/`feedback`/);
    }
    expect(JSON.stringify((await store.load(session.id))?.state)).toBe(stored);
    const state = (await store.load(session.id))?.state as SessionState;
    expect(state.guards.checkpoints.records[id]?.state).toBe('pending');
  });
});
