/**
 * The gate and knob hooks' promises: `gate()` checks a descriptor's fields and types its
 * predicates' arguments, `useGate` returns the gate's state and controls, and `useKnob`'s value
 * is the union of its options (or its schema's type), never widened to `string`.
 */
import {
  defineTool,
  type GateDescriptor,
  type GateState,
  type GateTick,
  gate,
  type TickResult,
  Tool,
  useGate,
  useKnob,
} from '@agate/core';
import type { ModelMessage } from 'ai';
import type { ReactElement } from 'react';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

const testsPass = gate({
  description: 'The tests pass',
  instructions: 'Run the tests and fix what fails before you finish.',
  activateWhen: (tick) => {
    expectTypeOf(tick).toEqualTypeOf<GateTick>();
    expectTypeOf(tick).toMatchTypeOf<TickResult>();
    return tick.toolCalls.some((call) => call.toolName === 'write_file');
  },
  clearWhen: (tick, history) => {
    expectTypeOf(history.ticks).toEqualTypeOf<readonly TickResult[]>();
    expectTypeOf(history.timeline).toEqualTypeOf<readonly ModelMessage[]>();
    return tick.toolResults.some((r) => r.toolName === 'run_tests' && !r.isError);
  },
  clearableBy: 'host',
});

describe('gate()', () => {
  it('returns the descriptor, read-only', () => {
    expectTypeOf(testsPass).toEqualTypeOf<Readonly<GateDescriptor>>();
  });

  it('refuses a descriptor that does not fit', () => {
    // @ts-expect-error: instructions are required
    gate({ description: 'The tests pass' });
    // @ts-expect-error: only the model, the host or a supervisor clears a gate
    gate({ description: 'd', instructions: 'i', clearableBy: 'anyone' });
    // @ts-expect-error: activateWhen answers a boolean
    gate({ description: 'd', instructions: 'i', activateWhen: () => 'yes' });
    // @ts-expect-error: a gate starts inactive, active or deferred
    gate({ description: 'd', instructions: 'i', initial: 'cleared' });
  });
});

const runTests = defineTool({
  name: 'run_tests',
  input: z.object({ filter: z.string().optional() }),
  execute: async ({ filter }) => {
    expectTypeOf(filter).toEqualTypeOf<string | undefined>();
    return { exitCode: 0, failed: [] as string[] };
  },
});

describe('tick.resultsOf(tool)', () => {
  it("types a tool's results by what its execute returns (awaited), in both predicates", () => {
    gate({
      description: 'The tests pass',
      instructions: 'Run the tests.',
      activateWhen: (tick) => {
        expectTypeOf(tick.resultsOf(runTests)).toEqualTypeOf<
          { exitCode: number; failed: string[] }[]
        >();
        return false;
      },
      clearWhen: (tick) => tick.resultsOf(runTests).some((r) => r.exitCode === 0),
    });
  });

  it('reads any object with a name and an execute, and refuses what has no execute', () => {
    const count = { name: 'count', execute: (input: { text: string }) => input.text.length };
    gate({
      description: 'd',
      instructions: 'i',
      clearWhen: (tick) => {
        expectTypeOf(tick.resultsOf(count)).toEqualTypeOf<number[]>();
        // @ts-expect-error: a bare name carries no type; pass the tool
        tick.resultsOf('run_tests');
        // @ts-expect-error: the results are objects, not strings
        return tick.resultsOf(runTests).some((r) => r.includes('ok'));
      },
    });
  });

  it('the defined tool renders as <Tool> props', () => {
    <Tool {...runTests} />;
    defineTool({
      name: 'x',
      input: z.object({ a: z.string() }),
      // @ts-expect-error: the schema has no `missing`
      execute: (input) => input.missing,
    });
  });
});

describe('useGate', () => {
  it('returns the gate’s state, its controls and the element showing it', () => {
    // biome-ignore lint/correctness/noComponentHookFactories: a type test; the component never renders.
    function Agent() {
      const tests = useGate('tests-pass', testsPass);
      expectTypeOf(tests).toEqualTypeOf<GateState>();
      expectTypeOf(tests.engaged).toBeBoolean();
      expectTypeOf(tests.clear).toEqualTypeOf<() => void>();
      expectTypeOf(tests.element).toEqualTypeOf<ReactElement | null>();
      return tests.element;
    }
    <Agent />;
  });

  it('takes a descriptor, not a name', () => {
    // biome-ignore lint/correctness/noComponentHookFactories: a type test; the component never renders.
    function Agent() {
      // @ts-expect-error: the second argument is the descriptor
      useGate('tests-pass', 'tests-pass');
      // @ts-expect-error: the gate needs a name
      useGate(testsPass);
      return null;
    }
    <Agent />;
  });
});

describe('useKnob', () => {
  it('types the value as the options’ union, and the setter to match', () => {
    // biome-ignore lint/correctness/noComponentHookFactories: a type test; the component never renders.
    function Agent() {
      const [mode, setMode] = useKnob('mode', {
        description: 'What the agent is doing',
        options: ['plan', 'build'],
        initial: 'plan',
      });
      expectTypeOf(mode).toEqualTypeOf<'plan' | 'build'>();
      setMode('build');
      // @ts-expect-error: not one of the options
      setMode('ship');
      return null;
    }
    <Agent />;
  });

  it('types the value from a schema', () => {
    // biome-ignore lint/correctness/noComponentHookFactories: a type test; the component never renders.
    function Agent() {
      const [depth] = useKnob('depth', {
        description: 'How deep to search',
        schema: z.number().int().min(1),
        initial: 2,
      });
      expectTypeOf(depth).toEqualTypeOf<number>();
      return null;
    }
    <Agent />;
  });

  it('refuses an initial value outside the options', () => {
    // biome-ignore lint/correctness/noComponentHookFactories: a type test; the component never renders.
    function Agent() {
      // @ts-expect-error: `initial` must be one of the options
      useKnob('mode', { description: 'd', options: ['plan', 'build'], initial: 'ship' });
      return null;
    }
    <Agent />;
  });
});
