import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidElementError } from '../../components/render-errors.js';
import { defineTool, gate, System, Timeline, Tool, User, useGate } from '../../index.js';
import { createSession } from '../../runtime/session.js';
import type { TickResult, TickToolResult } from '../../state/tick-result.js';
import { gateTick } from './gate-tick.js';
import { GatePredicateError, gateTransitionsAtTickEnd } from './gate-transitions.js';

const runTests = defineTool({
  name: 'run_tests',
  input: z.object({ pass: z.boolean() }),
  execute: ({ pass }) => ({ exitCode: pass ? 0 : 1 }),
});

function tickWith(results: Omit<TickToolResult, 'toolCallId'>[]): TickResult {
  const toolResults = results.map((r, i) => ({ ...r, toolCallId: `c${i}` }));
  return {
    tick: 1,
    toolCalls: toolResults.map((r) => ({
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      input: {},
    })),
    toolResults,
    text: '',
    finishReason: 'tool-calls',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
}

describe('gateTick(tick).resultsOf(tool)', () => {
  const tick = gateTick(
    tickWith([
      { toolName: 'run_tests', output: { exitCode: 1 }, isError: false },
      { toolName: 'write_file', output: 'wrote', isError: false },
      { toolName: 'run_tests', output: 'tests crashed', isError: true },
      { toolName: 'run_tests', output: 'refused', isError: true, refusedBy: 'phase-gates' },
      { toolName: 'run_tests', output: { exitCode: 0 }, isError: false },
    ]),
  );

  it("gives that tool's successful outputs, in call order; errors, refusals and other tools left out", () => {
    expect(tick.resultsOf(runTests)).toEqual([{ exitCode: 1 }, { exitCode: 0 }]);
    expect(tick.resultsOf({ name: 'write_file', execute: () => '' })).toEqual(['wrote']);
    expect(tick.resultsOf({ name: 'never_called', execute: () => 0 })).toEqual([]);
  });

  it('keeps the tick data as it was', () => {
    expect(tick.toolResults).toHaveLength(5);
    expect(Object.keys(tick)).not.toContain('resultsOf');
    expect(JSON.parse(JSON.stringify(tick))).toEqual(tick);
  });

  it('refuses what is not a named tool with a TypeError that says what to pass', () => {
    const untyped = tick.resultsOf as (tool: unknown) => unknown[];
    for (const bad of [null, undefined, 'run_tests', { execute: () => 0 }, { name: '' }]) {
      expect(() => untyped(bad), String(bad)).toThrow(/resultsOf needs a tool with a name/);
    }
  });

  it('a predicate that passes a bad tool ends as GatePredicateError naming the gate', () => {
    const bad = { name: 42 } as unknown as typeof runTests;
    expect(() =>
      gateTransitionsAtTickEnd(
        [
          {
            name: 'tests',
            state: 'active',
            descriptor: {
              description: 'd',
              instructions: 'i',
              clearWhen: (t) => t.resultsOf(bad).length > 0,
            },
          },
        ],
        tickWith([]),
        { ticks: [], timeline: [] },
      ),
    ).toThrow(GatePredicateError);
  });
});

describe('defineTool', () => {
  it('gives back the props, and refuses a bad name or a missing execute where it is written', () => {
    expect(runTests.name).toBe('run_tests');
    expect(() => defineTool({ name: 'has space', input: z.object({}), execute: () => 0 })).toThrow(
      InvalidElementError,
    );
    expect(() =>
      defineTool({ name: 'x', input: z.object({}) } as unknown as Parameters<typeof defineTool>[0]),
    ).toThrow(/needs an `execute` function/);
  });
});

const testsPass = gate({
  description: 'The tests pass',
  instructions: 'TESTS NOT RUN: run the tests and make them pass.',
  initial: 'active',
  clearWhen: (tick) => tick.resultsOf(runTests).some((r) => r.exitCode === 0),
});
function Agent() {
  const g = useGate('tests', testsPass);
  return (
    <>
      <System>Run the tests.</System>
      <User>Make the tests pass.</User>
      <Timeline />
      <Tool {...runTests} />
      {g.element}
    </>
  );
}

describe('a gate cleared from typed results, in a run', () => {
  it('stays engaged on a failing run and clears on a passing one', async () => {
    const session = createSession(<Agent />, {
      model: scriptedModel([
        { toolCalls: [{ toolName: 'run_tests', input: { pass: false } }] },
        'Done.',
        { toolCalls: [{ toolName: 'run_tests', input: { pass: true } }] },
        'Done, the tests pass.',
      ]),
      maxTicks: 8,
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    // The failing run left the gate engaged, so "Done." was refused; the passing one cleared it.
    expect(result.ticks).toBe(4);
    expect(result.text).toBe('Done, the tests pass.');
    expect(result.gates.tests).toBe('inactive');
  });
});
