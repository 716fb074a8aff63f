import {
  createSession,
  Gate,
  Output,
  type SessionState,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import ApprovalAgent from '../__fixtures__/approval-agent.js';
import { conversationOf } from './conversation.js';
import { sessionRow, sessionView } from './session-view.js';

function Notes() {
  return (
    <>
      <System>You save notes.</System>
      <User>Save one.</User>
      <Timeline />
      <Tool
        name="save_note"
        description="Save a note"
        input={z.object({ text: z.string() })}
        execute={({ text }) => {
          if (text === '') throw new Error('empty note');
          return `Saved: ${text}`;
        }}
      />
    </>
  );
}

describe('sessionView', () => {
  it('gives the conversation of a session from its state alone: replies, calls, results, errors', async () => {
    const session = createSession(<Notes />, {
      id: 'notes',
      model: scriptedModel([
        {
          text: 'Saving.',
          reasoning: 'A note is asked for.',
          toolCalls: [
            { toolCallId: 'a', toolName: 'save_note', input: { text: 'milk' } },
            { toolCallId: 'b', toolName: 'save_note', input: { text: '' } },
          ],
        },
        'Saved milk; the empty one failed.',
      ]),
    });
    expect((await session.run()).status).toBe('completed');
    const view = sessionView(session.state as SessionState, false);
    expect(view).toMatchObject({ id: 'notes', status: 'completed', ticks: 2, live: false });
    expect(view.pending).toEqual([]);
    expect(view.pendingCalls).toEqual([]);
    expect(view.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(view.messages[0]?.parts).toEqual([
      { kind: 'reasoning', text: 'A note is asked for.' },
      { kind: 'text', text: 'Saving.' },
      { kind: 'tool-call', toolName: 'save_note', callId: 'a', input: '{\n  "text": "milk"\n}' },
      { kind: 'tool-call', toolName: 'save_note', callId: 'b', input: '{\n  "text": ""\n}' },
    ]);
    expect(view.messages[1]?.parts).toEqual([
      {
        kind: 'tool-result',
        toolName: 'save_note',
        callId: 'a',
        output: 'Saved: milk',
        isError: false,
      },
      expect.objectContaining({ kind: 'tool-result', callId: 'b', isError: true }),
    ]);
    expect(view.messages[2]?.parts).toEqual([
      { kind: 'text', text: 'Saved milk; the empty one failed.' },
    ]);
  });

  it("shows a final_answer's result as the model read it: 'Not accepted: …' as an error, then 'Final answer accepted.'", async () => {
    const session = createSession(
      <>
        <User>Answer.</User>
        <Timeline />
        <Tool name="run_tests" input={z.object({})} execute={() => ({ exitCode: 0 })} />
        <Gate
          name="tests-run"
          description="The tests must run first"
          instructions="Run the tests."
          initial="active"
          clearWhen={(tick) => tick.toolCalls.some((c) => c.toolName === 'run_tests')}
        />
        <Output schema={z.object({ ok: z.boolean() })} />
      </>,
      {
        id: 'answers',
        model: scriptedModel([
          { toolCalls: [{ toolName: 'final_answer', input: { ok: true } }] },
          { toolCalls: [{ toolName: 'run_tests', input: {} }] },
          { toolCalls: [{ toolName: 'final_answer', input: { ok: true } }] },
        ]),
      },
    );
    expect((await session.run()).status).toBe('completed');
    const results = sessionView(session.state as SessionState, false)
      .messages.flatMap((m) => m.parts)
      .filter((p) => p.kind === 'tool-result' && p.toolName === 'final_answer');
    expect(results).toEqual([
      expect.objectContaining({
        isError: true,
        output: expect.stringMatching(
          /^Not accepted: Gate "tests-run" is active \(refusal 1 of 5\)/,
        ),
      }),
      expect.objectContaining({ isError: false, output: 'Final answer accepted.' }),
    ]);
  });

  it("gives a held call's whole input and the digest of the ledger's request for it", async () => {
    const table = `old_logs${' '.repeat(5_000)}; DROP TABLE payments;`;
    const session = createSession(<ApprovalAgent />, {
      id: 'held',
      model: scriptedModel([
        { toolCalls: [{ toolCallId: 'c-1', toolName: 'drop_table', input: { table } }] },
      ]),
    });
    expect((await session.run()).status).toBe('awaiting-approval');
    const state = session.state as SessionState;
    const request = state.guards.approvals.ledger.find((e) => e.kind === 'tool-approval-request');
    const view = sessionView(state, false);
    expect(view.pendingCalls).toEqual([
      {
        id: 'c-1',
        toolName: 'drop_table',
        tick: 1,
        input: JSON.stringify({ table }, null, 2),
        digest: request?.inputHash,
      },
    ]);
    expect(view.pendingCalls[0]?.input).toContain('; DROP TABLE payments;');
    expect(view.ledger.map((l) => l.sentence)).toEqual([
      expect.stringContaining(
        `The call c-1 to drop_table was held for approval (input sha256 ${request?.inputHash})`,
      ),
    ]);
    // The list's row names the call, without its input (the view has it).
    expect(sessionRow(state, false).pendingCalls).toEqual([
      { id: 'c-1', toolName: 'drop_table', tick: 1 },
    ]);
  });
});

describe('the view of both ledgers', () => {
  it('lists checkpoint and tool-call entries together in time order (each ledger numbers its own)', () => {
    const entry = (seq: number, kind: string, checkpoint: string, minute: number) => ({
      seq,
      kind,
      checkpoint,
      by: kind === 'submitted' ? 'model' : kind.startsWith('tool-') ? 'runtime' : 'ana',
      at: `2026-12-01T10:0${minute}:00.000Z`,
      tick: minute,
      ...(kind === 'approved' ? { answers: 1 } : {}),
      ...(kind.startsWith('tool-') ? { toolName: 'pay', inputHash: 'ab' } : {}),
    });
    const state = {
      id: 's',
      tick: 3,
      status: 'awaiting-approval',
      timeline: [],
      guards: {
        checkpoints: {
          records: { 'T-1': { state: 'approved', ticks: 0, openedAtTick: 1 } },
          ledger: [entry(1, 'submitted', 'T-1', 1), entry(2, 'approved', 'T-1', 3)],
        },
        approvals: { calls: [], ledger: [entry(1, 'tool-approval-request', 'c-1', 2)] },
      },
    } as unknown as SessionState;
    const sentences = sessionView(state, false).ledger.map((l) => l.sentence);
    expect(sentences).toEqual([
      expect.stringMatching(/^#1, tick 1: .*T-1/),
      expect.stringMatching(/^#1, tick 2: The call c-1 to pay was held/),
      expect.stringMatching(/^#2, tick 3: ana approved checkpoint T-1/),
    ]);
  });
});

describe('conversationOf', () => {
  it('reads a hand-edited or foreign timeline without throwing, naming what it does not know', () => {
    expect(conversationOf(undefined)).toEqual([]);
    expect(conversationOf('nope')).toEqual([]);
    expect(
      conversationOf([
        null,
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'image', image: 'x' },
            7,
            { type: 'tool-result', output: { type: 'execution-denied' } },
          ],
        },
        { role: 'tool', content: 'not parts' },
      ]),
    ).toEqual([
      { role: '?', parts: [] },
      { role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        parts: [
          { kind: 'other', type: 'image' },
          { kind: 'other', type: '?' },
          {
            kind: 'tool-result',
            toolName: '?',
            callId: '?',
            output: '(execution-denied)',
            isError: true,
          },
        ],
      },
      { role: 'tool', parts: [{ kind: 'text', text: 'not parts' }] },
    ]);
  });
});
