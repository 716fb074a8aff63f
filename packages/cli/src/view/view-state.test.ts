import type { AgateEvent } from '@agate/core';
import { describe, expect, it } from 'vitest';
import {
  initialView,
  PREVIEW_LENGTH,
  type RunViewState,
  reduceView,
  type TickNote,
} from './view-state.js';

const usage = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };

function notesOf(view: RunViewState): TickNote[] {
  return (view.current?.entries ?? []).filter((e): e is TickNote => e.type === 'note');
}

function reduceAll(events: AgateEvent[], from: RunViewState = initialView()): RunViewState {
  return events.reduce(reduceView, from);
}

describe('reduceView', () => {
  it('streams text into the current tick, then replaces it with the whole reply', () => {
    const view = reduceAll([
      { type: 'run:start', sessionId: 's1', tick: 0 },
      { type: 'tick:start', tick: 1 },
      { type: 'model:delta', tick: 1, kind: 'text', delta: 'Hel' },
      { type: 'model:delta', tick: 1, kind: 'reasoning', delta: '(thinking)' },
      { type: 'model:delta', tick: 1, kind: 'text', delta: 'lo' },
    ]);
    expect(view.sessionId).toBe('s1');
    expect(view.current?.text).toBe('Hello');
    const after = reduceView(view, {
      type: 'model:response',
      tick: 1,
      text: 'Hello there',
      toolCalls: [],
      finishReason: 'stop',
      usage,
    });
    expect(after.current?.text).toBe('Hello there');
    expect(after.usage).toEqual(usage);
    expect(
      reduceView(after, {
        type: 'model:response',
        tick: 2,
        text: '',
        toolCalls: [],
        finishReason: 'stop',
        usage,
      }).usage.totalTokens,
    ).toBe(24); // usage adds up over the run's model calls
  });

  it('tracks each tool call to its result, error or refusal', () => {
    const view = reduceAll([
      { type: 'tick:start', tick: 1 },
      { type: 'tool:call', tick: 1, toolCallId: 'a', toolName: 'read', input: { path: 'x' } },
      { type: 'tool:call', tick: 1, toolCallId: 'b', toolName: 'write', input: {} },
      { type: 'tool:call', tick: 1, toolCallId: 'c', toolName: 'bash', input: { cmd: 'ls' } },
      {
        type: 'tool:result',
        tick: 1,
        toolCallId: 'a',
        toolName: 'read',
        output: { size: 3 },
        isError: false,
      },
      {
        type: 'tool:result',
        tick: 1,
        toolCallId: 'b',
        toolName: 'write',
        output: 'disk full',
        isError: true,
      },
      {
        type: 'tool:refused',
        tick: 1,
        toolCallId: 'c',
        toolName: 'bash',
        by: 'checkpoint',
        message: 'Execution blocked.',
      },
      {
        type: 'tool:result',
        tick: 1,
        toolCallId: 'c',
        toolName: 'bash',
        output: 'Execution blocked.',
        isError: true,
      },
    ]);
    expect(view.current?.entries).toEqual([
      {
        type: 'tool',
        id: 'a',
        name: 'read',
        input: '{"path":"x"}',
        status: 'ok',
        output: '{"size":3}',
      },
      { type: 'tool', id: 'b', name: 'write', input: '{}', status: 'error', output: 'disk full' },
      {
        type: 'tool',
        id: 'c',
        name: 'bash',
        input: '{"cmd":"ls"}',
        status: 'refused',
        output: 'Execution blocked.',
        refusedBy: 'checkpoint',
      },
    ]);
  });

  it('cuts long tool inputs and outputs to one preview line', () => {
    const view = reduceAll([
      { type: 'tick:start', tick: 1 },
      { type: 'tool:call', tick: 1, toolCallId: 'a', toolName: 'read', input: 'x'.repeat(500) },
      {
        type: 'tool:result',
        tick: 1,
        toolCallId: 'a',
        toolName: 'read',
        output: 'line1\nline2',
        isError: false,
      },
    ]);
    const [line] = view.current?.entries ?? [];
    if (line?.type !== 'tool') throw new Error('expected a tool line');
    expect(line.input).toHaveLength(PREVIEW_LENGTH);
    expect(line.input.endsWith('…')).toBe(true);
    expect(line.output).toBe('line1⏎line2');
  });

  it('moves a finished tick to `done` when the next one starts, and the last one at run end', () => {
    const view = reduceAll([
      { type: 'tick:start', tick: 1 },
      { type: 'tick:start', tick: 2 },
      { type: 'run:end', status: 'max-ticks', reason: 'maxTicks (2) reached', ticks: 2 },
    ]);
    expect(view.done.map((t) => t.tick)).toEqual([1, 2]);
    expect(view.current).toBeUndefined();
    expect(view.end).toEqual({ status: 'max-ticks', reason: 'maxTicks (2) reached', ticks: 2 });
  });

  it('follows gates through events, counting exit refusals and resetting them on clear', () => {
    const facts = reduceView(initialView(), {
      type: 'view:facts',
      gates: { tests: { state: 'deferred', blocks: 0, maxBlocks: 3 } },
      knobs: { mode: 'plan' },
      checkpoints: {},
    });
    const view = reduceAll(
      [
        { type: 'tick:start', tick: 1 },
        { type: 'gate:activated', tick: 1, gate: 'tests', from: 'deferred', by: 'runtime' },
        {
          type: 'exit:blocked',
          tick: 1,
          gate: 'tests',
          gates: ['tests'],
          reasons: ['Gate "tests" is active.'],
          by: 'runtime',
          final: false,
        },
        {
          type: 'knob:changed',
          tick: 1,
          knob: 'mode',
          value: 'build',
          previous: 'plan',
          by: 'model',
        },
      ],
      facts,
    );
    expect(view.gates.tests).toEqual({ state: 'active', blocks: 1, maxBlocks: 3 });
    expect(view.knobs).toEqual({ mode: 'build' });
    expect(notesOf(view).map((n) => [n.kind, n.text])).toEqual([
      ['gate', 'gate tests: deferred → active (by runtime)'],
      ['exit-refused', 'exit refused: Gate "tests" is active.'],
      ['knob', 'knob mode = "build" (by model)'],
    ]);
    const cleared = reduceView(view, {
      type: 'gate:cleared',
      tick: 2,
      gate: 'tests',
      from: 'active',
      by: 'host',
    });
    expect(cleared.gates.tests).toEqual({ state: 'inactive', blocks: 0, maxBlocks: 3 });
  });

  it("keeps the ContinueGate's last decision and budget use; only decisions other than continue are notes", () => {
    const step = {
      stepNumber: 4,
      totalTokensUsed: 900,
      totalToolCalls: 6,
      reworkCount: 0,
      coherenceScore: 1,
      uncertaintyScore: 0,
      budgetRemaining: { tokens: 100 },
      lastCheckpointStep: 0,
    };
    const metrics = {
      budgetSlope: 0,
      reworkRatio: 0,
      coherenceLevel: 1,
      uncertaintyLevel: 0,
      stepsUntilCheckpoint: 21,
    };
    const quiet = reduceAll([
      { type: 'tick:start', tick: 5 },
      {
        type: 'continue:evaluated',
        tick: 5,
        evaluation: { decision: 'continue', reasons: [], metrics },
        step,
      },
    ]);
    expect(quiet.continueGate).toEqual({
      tick: 5,
      decision: 'continue',
      reasons: [],
      step: 4,
      tokensUsed: 900,
      toolCalls: 6,
      budgetRemaining: { tokens: 100 },
      stepsUntilCheckpoint: 21,
    });
    expect(notesOf(quiet)).toEqual([]);
    const paused = reduceView(quiet, {
      type: 'continue:evaluated',
      tick: 5,
      evaluation: { decision: 'pause', reasons: ['rework ratio 0.5 > 0.3'], metrics },
      step,
    });
    expect(notesOf(paused).map((n) => n.text)).toEqual([
      'ContinueGate: pause — rework ratio 0.5 > 0.3',
    ]);
  });

  it('follows checkpoints from submission to pending, rejection and approval', () => {
    const view = reduceAll([
      { type: 'tick:start', tick: 2 },
      { type: 'checkpoint:submitted', tick: 2, id: 'T-1', summary: 'auth done' },
      {
        type: 'checkpoint:pending',
        tick: 2,
        id: 'T-1',
        cause: 'submit',
        reason: 'submitted: auth done',
      },
    ]);
    expect(view.checkpoints).toEqual({
      'T-1': { state: 'pending', reason: 'submitted: auth done' },
    });
    const rejected = reduceView(view, {
      type: 'checkpoint:rejected',
      tick: 2,
      id: 'T-1',
      by: 'ana',
      feedback: 'add tests',
    });
    expect(rejected.checkpoints['T-1']).toEqual({ state: 'unlocked' });
    const approved = reduceView(rejected, {
      type: 'checkpoint:approved',
      tick: 3,
      id: 'T-1',
      by: 'ana',
      note: 'ok',
    });
    expect(approved.checkpoints['T-1']).toEqual({ state: 'approved' });
    expect(notesOf(approved).map((n) => n.text)).toEqual([
      'checkpoint T-1 submitted: auth done',
      'checkpoint T-1 pending (submit): submitted: auth done',
      'checkpoint T-1 rejected by ana: add tests',
      'checkpoint T-1 approved by ana: ok',
    ]);
  });

  it('keeps tool calls and notes in the order they happened', () => {
    const view = reduceAll([
      { type: 'tick:start', tick: 1 },
      { type: 'tool:call', tick: 1, toolCallId: 'a', toolName: 'submit', input: {} },
      { type: 'checkpoint:submitted', tick: 1, id: 'T-1', summary: 'done' },
      {
        type: 'tool:result',
        tick: 1,
        toolCallId: 'a',
        toolName: 'submit',
        output: 'ok',
        isError: false,
      },
      { type: 'tool:call', tick: 1, toolCallId: 'b', toolName: 'write', input: {} },
    ]);
    expect(
      view.current?.entries.map((e) => (e.type === 'tool' ? `tool ${e.name}` : e.text)),
    ).toEqual(['tool submit', 'checkpoint T-1 submitted: done', 'tool write']);
  });

  it('never changes the state it is given', () => {
    const before = reduceAll([{ type: 'tick:start', tick: 1 }]);
    const frozen = JSON.stringify(before);
    reduceView(before, { type: 'tool:call', tick: 1, toolCallId: 'a', toolName: 't', input: {} });
    reduceView(before, { type: 'warning', tick: 1, code: 'x', message: 'y' });
    expect(JSON.stringify(before)).toBe(frozen);
  });
});
