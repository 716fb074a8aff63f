import { describe, expect, it } from 'vitest';
import type { CompiledContext } from '../renderer/compiled-context.js';
import type { TickToolCall } from '../state/tick-result.js';
import type { Guard, GuardTick } from './guard-family.js';
import { GuardSet } from './guard-set.js';

const tick: GuardTick = {
  tick: 1,
  context: {
    system: '',
    messages: [],
    tools: [],
    ephemeral: [],
    knobs: [],
    gates: [],
  } as CompiledContext,
  signal: new AbortController().signal,
  recentTicks: [],
};
const call: TickToolCall = { toolCallId: 'c1', toolName: 'drop_table', input: {} };

const holder = (asked: string[]): Guard => ({
  name: 'holder',
  beforeToolCall: async () => {
    asked.push('holder');
    return { kind: 'hold', reason: 'a person decides' };
  },
});

describe('GuardSet: holding and releasing calls', () => {
  it('a refusal by an earlier family wins over a later hold, which is then not asked', () => {
    const asked: string[] = [];
    const set = new GuardSet([
      { name: 'refuser', beforeToolCall: () => ({ kind: 'refuse', message: 'no' }) },
      holder(asked),
    ]);
    expect(set.beforeToolCall(tick, call)).toEqual({
      kind: 'refuse',
      message: 'no',
      by: 'refuser',
    });
    expect(asked).toEqual([]);
  });

  it('an async hold is awaited and named; later families are not asked', async () => {
    const asked: string[] = [];
    const set = new GuardSet([
      { name: 'allower', beforeToolCall: () => ({ kind: 'allow' }) },
      holder(asked),
      {
        name: 'later',
        beforeToolCall: () => {
          asked.push('later');
          return { kind: 'allow' };
        },
      },
    ]);
    await expect(set.beforeToolCall(tick, call)).resolves.toEqual({
      kind: 'hold',
      reason: 'a person decides',
      by: 'holder',
    });
    expect(asked).toEqual(['holder']);
  });

  it('an async allow goes on to the next families', async () => {
    const set = new GuardSet([
      { name: 'slow', beforeToolCall: async () => ({ kind: 'allow' }) },
      { name: 'refuser', beforeToolCall: () => ({ kind: 'refuse', message: 'no' }) },
    ]);
    await expect(set.beforeToolCall(tick, call)).resolves.toMatchObject({ by: 'refuser' });
  });

  it('released calls come from every family, in family order', () => {
    const set = new GuardSet([
      { name: 'a', releaseHeldCalls: () => [{ call: { ...call, toolCallId: 'a1' } }] },
      { name: 'idle' },
      {
        name: 'b',
        releaseHeldCalls: () => [
          { call: { ...call, toolCallId: 'b1' }, answer: { output: 'denied', isError: true } },
        ],
      },
    ]);
    expect(set.releaseHeldCalls(tick).map((r) => r.call.toolCallId)).toEqual(['a1', 'b1']);
    expect(new GuardSet([{ name: 'none' }]).releaseHeldCalls(tick)).toEqual([]);
  });
});
