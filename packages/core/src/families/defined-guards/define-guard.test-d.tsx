/**
 * `defineGuard`'s promise: the state type comes from `initialState` or `stateSchema`, the props
 * type from `propsSchema` (or both are given), every hook sees them, `setState` and the hooks'
 * answers are checked, and the component it returns takes exactly those props.
 */
import { defineGuard, type GuardComponent } from '@agate/core';
import type { GuardToolCall, GuardToolResult } from '@agate/core/guards';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

describe('defineGuard state', () => {
  it('is typed from initialState, in every hook, and setState keeps to it', () => {
    defineGuard({
      name: 'counter',
      initialState: { calls: 0, last: '' },
      render: ({ state }) => {
        expectTypeOf(state).toEqualTypeOf<{ calls: number; last: string }>();
        return null;
      },
      afterToolCall: ({ state, setState, call, result }) => {
        expectTypeOf(call).toEqualTypeOf<GuardToolCall>();
        expectTypeOf(call.input).toBeUnknown();
        expectTypeOf(result).toEqualTypeOf<GuardToolResult>();
        setState({ calls: state.calls + 1, last: call.toolName });
        setState((previous) => ({ ...previous, calls: previous.calls + 1 }));
        // @ts-expect-error: `calls` is a number
        setState({ calls: '1', last: '' });
        // @ts-expect-error: the state has no `total`
        setState({ calls: 1, last: '', total: 2 });
      },
    });
  });

  it('is typed from stateSchema when there is no initialState', () => {
    defineGuard({
      name: 'spend',
      stateSchema: z.object({ spent: z.number().nonnegative() }),
      tickEnd: ({ state }) => {
        expectTypeOf(state).toEqualTypeOf<{ spent: number }>();
      },
    });
  });

  it('is undefined for a guard that keeps none', () => {
    defineGuard({
      name: 'stateless',
      exitAttempt: ({ state }) => {
        expectTypeOf(state).toBeUndefined();
      },
    });
  });

  it('must fit its schema', () => {
    defineGuard({
      name: 'spend',
      stateSchema: z.object({ spent: z.number() }),
      // @ts-expect-error: the schema says `spent` is a number
      initialState: { spent: 'none' },
    });
  });
});

describe('defineGuard props', () => {
  const CostLimit = defineGuard({
    name: 'cost-limit',
    propsSchema: z.object({ maxDollars: z.number().positive(), model: z.string().optional() }),
    initialState: { spent: 0 },
    beforeModelCall: ({ props, state }) => {
      expectTypeOf(props).toEqualTypeOf<{ maxDollars: number; model?: string | undefined }>();
      if (state.spent > props.maxDollars) {
        return { end: { status: 'stopped', reason: 'Over budget.' } };
      }
    },
  });

  it('are typed from propsSchema, and the component takes exactly them', () => {
    expectTypeOf(CostLimit).toEqualTypeOf<
      GuardComponent<{ maxDollars: number; model?: string | undefined }>
    >();
    expectTypeOf(CostLimit.guardName).toBeString();
    <CostLimit maxDollars={1} />;
    <CostLimit maxDollars={1} model="gpt-4.1-mini" />;
    // @ts-expect-error: maxDollars is a number
    <CostLimit maxDollars="1" />;
    // @ts-expect-error: maxDollars is required
    <CostLimit />;
    // @ts-expect-error: no such prop
    <CostLimit maxDollars={1} maxEuros={1} />;
  });

  it('are none by default', () => {
    const Quiet = defineGuard({ name: 'quiet', exitAttempt: () => undefined });
    <Quiet />;
    // @ts-expect-error: a guard without propsSchema takes no props
    <Quiet level={2} />;
  });

  it('and state can be given as type arguments', () => {
    const Limit = defineGuard<{ limit: number }, { used: number }>({
      name: 'limit',
      initialState: { used: 0 },
      beforeToolCall: ({ props, state }) =>
        state.used >= props.limit ? { refuse: `At most ${props.limit} calls.` } : undefined,
    });
    <Limit limit={3} />;
    // @ts-expect-error: limit is a number
    <Limit limit="3" />;
  });
});

describe('the hooks’ answers', () => {
  it('are checked', () => {
    defineGuard({
      name: 'answers',
      beforeToolCall: async () => ({ refuse: 'Not now.' }),
      afterToolCall: () => ({ result: { replaced: true } }),
      tickEnd: () => ({ end: { status: 'paused', reason: 'A person should look.' } }),
      exitAttempt: () => ({ refuse: 'Run the tests first.' }),
    });
    defineGuard({
      name: 'bad-refusal',
      // @ts-expect-error: a refusal is text the model reads
      beforeToolCall: () => ({ refuse: 42 }),
    });
    defineGuard({
      name: 'bad-end',
      // @ts-expect-error: a guard ends a run `stopped` or `paused`, never `completed`
      tickEnd: () => ({ end: { status: 'completed', reason: 'done' } }),
    });
    defineGuard({
      name: 'bad-result',
      // @ts-expect-error: a replaced result is JSON
      afterToolCall: () => ({ result: new Map() }),
    });
    defineGuard({
      name: 'sync-exit',
      // @ts-expect-error: exitAttempt answers at once (it is not async)
      exitAttempt: async () => ({ refuse: 'later' }),
    });
  });
});
