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

  it("prints a finish call's result as the model read it: Not accepted when refused, never relabelled at run end", () => {
    const answer = (tick: number, id: string, output: string, isError: boolean): AgateEvent[] => [
      { type: 'tick:start', tick },
      { type: 'tool:call', tick, toolCallId: id, toolName: 'final_answer', input: { ok: false } },
      { type: 'tool:result', tick, toolCallId: id, toolName: 'final_answer', output, isError },
    ];
    const refusal = 'Not accepted: Gate "read" is active (refusal 1 of 5): Read the file.';
    const blocked = (tick: number, final: boolean): AgateEvent => ({
      type: 'exit:blocked',
      tick,
      gate: 'read',
      gates: ['read'],
      reasons: ['Gate "read" is active.'],
      by: 'runtime',
      final,
    });
    expect(
      printed([
        ...answer(1, 'a', refusal, true),
        blocked(1, false),
        ...answer(2, 'b', 'Final answer accepted.', false),
        { type: 'run:end', status: 'completed', ticks: 2, output: { ok: true } },
      ]),
    ).toBe(
      [
        '── tick 1 ──',
        '  → final_answer {"ok":false}',
        `  ✗ final_answer: ${refusal}`,
        '  exit refused:',
        '    Gate "read" is active.',
        '── tick 2 ──',
        '  → final_answer {"ok":false}',
        '  ← final_answer: Final answer accepted.',
        '',
      ].join('\n'),
    );
    // A refusal that ends the run: its line still says what the model read, and the run's end
    // does not turn it into anything else.
    const ended = printed([
      ...answer(1, 'a', `${refusal} The run ends blocked (not completed).`, true),
      blocked(1, true),
      { type: 'run:end', status: 'blocked', ticks: 1, reason: 'Gate "read" refused 6 times' },
    ]);
    expect(ended).toContain(`  ✗ final_answer: ${refusal} The run ends blocked (not completed).\n`);
    expect(ended).not.toMatch(/accepted\n|received/i);
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
