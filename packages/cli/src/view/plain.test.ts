import type { AgateEvent } from '@agate/core';
import { describe, expect, it } from 'vitest';
import { createPlainPrinter, plainLines, resultLines } from './plain.js';

function printed(events: AgateEvent[]): string {
  let out = '';
  const print = createPlainPrinter((text) => {
    out += text;
  });
  for (const event of events) print(event);
  return out;
}

describe('plain lines', () => {
  it('prints a refused call once, as a refusal (not again as its error result)', () => {
    expect(
      printed([
        { type: 'tick:start', tick: 2 },
        { type: 'tool:call', tick: 2, toolCallId: 'a', toolName: 'bash', input: { cmd: 'ls' } },
        {
          type: 'tool:refused',
          tick: 2,
          toolCallId: 'a',
          toolName: 'bash',
          by: 'checkpoint',
          message: 'Execution blocked.',
        },
        {
          type: 'tool:result',
          tick: 2,
          toolCallId: 'a',
          toolName: 'bash',
          output: 'Execution blocked.',
          isError: true,
        },
        {
          type: 'checkpoint:pending',
          tick: 2,
          id: 'T-1',
          cause: 'budget',
          reason: 'budget of 3 ticks used',
        },
      ]),
    ).toBe(
      '── tick 2 ──\n  → bash {"cmd":"ls"}\n  ⊘ bash refused by checkpoint: Execution blocked.\n  checkpoint T-1 pending (budget): budget of 3 ticks used\n',
    );
  });

  it('prints the model text once per tick, indented under its label, and nothing for deltas', () => {
    expect(plainLines({ type: 'model:delta', tick: 1, kind: 'text', delta: 'Hel' })).toEqual([]);
    expect(
      plainLines({
        type: 'model:response',
        tick: 1,
        text: 'Line one\nline two\n',
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      }),
    ).toEqual(['  model: Line one\n         line two']);
  });

  it('says when a refusal ends the run, one reason per line', () => {
    expect(
      plainLines({
        type: 'exit:blocked',
        tick: 6,
        gate: 'tests',
        gates: ['tests'],
        reasons: ['Gate "tests" is active.', 'Gate "lint" is active.'],
        by: 'runtime',
        final: true,
      }),
    ).toEqual([
      '  exit refused (final: the run ends blocked):',
      '    Gate "tests" is active.',
      '    Gate "lint" is active.',
    ]);
  });

  it("prints <Output>'s final answer as refused when the exit is refused, as accepted when the run completes", () => {
    const answer = (tick: number, id: string): AgateEvent[] => [
      { type: 'tick:start', tick },
      { type: 'tool:call', tick, toolCallId: id, toolName: 'final_answer', input: { ok: false } },
      {
        type: 'tool:result',
        tick,
        toolCallId: id,
        toolName: 'final_answer',
        output: 'Final answer received.',
        isError: false,
      },
      { type: 'gate:activated', tick, gate: 'read', from: 'deferred', by: 'runtime', reason: 'x' },
    ];
    expect(
      printed([
        ...answer(1, 'a'),
        {
          type: 'exit:blocked',
          tick: 1,
          gate: 'read',
          gates: ['read'],
          reasons: ['Gate "read" is active.'],
          by: 'runtime',
          final: false,
        },
        ...answer(2, 'b'),
        { type: 'run:end', status: 'completed', ticks: 2, output: { ok: true } },
      ]),
    ).toBe(
      [
        '── tick 1 ──',
        '  → final_answer {"ok":false}',
        '  gate read: deferred → active (by runtime)',
        '  ⊘ final_answer: refused (the run goes on; why below)',
        '  exit refused:',
        '    Gate "read" is active.',
        '── tick 2 ──',
        '  → final_answer {"ok":false}',
        '  gate read: deferred → active (by runtime)',
        '  ← final_answer: accepted',
        '',
      ].join('\n'),
    );
  });

  it("ends with <Output>'s object as pretty JSON under the run's totals", () => {
    const usage = { inputTokens: 3, outputTokens: 2, totalTokens: 5 };
    const base = { status: 'completed', ticks: 1, totalTicks: 1, usage } as const;
    expect(
      resultLines({ ...base, output: { verdict: 'approve', issues: ['none'] } } as never),
    ).toEqual([
      'status: completed',
      'ticks: 1 (session total 1)',
      'tokens: 3 in + 2 out = 5',
      'output:',
      '  {',
      '    "verdict": "approve",',
      '    "issues": [',
      '      "none"',
      '    ]',
      '  }',
    ]);
    expect(resultLines(base as never)).toHaveLength(3);
  });
});
