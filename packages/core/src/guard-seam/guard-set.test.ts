import { describe, expect, it } from 'vitest';
import type { CompiledContext } from '../renderer/compiled-context.js';
import type { TickToolCall } from '../state/tick-result.js';
import type { BeforeModelVerdict, ExitVerdict, Guard, GuardTick } from './guard-family.js';
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
const call: TickToolCall = { toolCallId: 'c1', toolName: 'write_file', input: {} };

function exitGuard(name: string, verdict: ExitVerdict, asked: string[]): Guard {
  return {
    name,
    exitAttempt: () => {
      asked.push(name);
      return verdict;
    },
  };
}

describe('GuardSet', () => {
  it('lets the run finish when no family refuses, and asks every family', () => {
    const asked: string[] = [];
    const set = new GuardSet([
      exitGuard('a', { kind: 'allow' }, asked),
      { name: 'idle' },
      exitGuard('b', { kind: 'allow' }, asked),
    ]);
    expect(set.exitAttempt(tick)).toEqual({ kind: 'allow' });
    expect(asked).toEqual(['a', 'b']);
  });

  it('merges refusals: every name, every reason, every notice, in family order', () => {
    const asked: string[] = [];
    const set = new GuardSet([
      exitGuard('a', { kind: 'refuse', names: ['x'], reasons: ['rx'], notice: 'nx' }, asked),
      exitGuard('b', { kind: 'allow' }, asked),
      exitGuard('c', { kind: 'refuse', names: ['y'], reasons: ['ry'], notice: 'ny' }, asked),
    ]);
    expect(set.exitAttempt(tick)).toEqual({
      kind: 'refuse',
      names: ['x', 'y'],
      reasons: ['rx', 'ry'],
      notice: 'nx\n\nny',
    });
  });

  it('the strictest answer wins: one family ending the run ends it, with all reasons', () => {
    const asked: string[] = [];
    const set = new GuardSet([
      exitGuard('a', { kind: 'refuse', names: ['x'], reasons: ['rx'], notice: 'nx' }, asked),
      exitGuard(
        'b',
        { kind: 'end', names: ['y'], reasons: ['ry'], reason: 'bound reached' },
        asked,
      ),
    ]);
    expect(set.exitAttempt(tick)).toEqual({
      kind: 'end',
      names: ['x', 'y'],
      reasons: ['rx', 'ry'],
      reason: 'bound reached',
    });
    // Both families counted the attempt.
    expect(asked).toEqual(['a', 'b']);
  });

  it('stops at the first family that ends the run before the model call', async () => {
    const asked: string[] = [];
    const asking = (name: string, verdict: BeforeModelVerdict): Guard => ({
      name,
      beforeModelCall: async () => {
        asked.push(name);
        return verdict;
      },
    });
    const set = new GuardSet([
      asking('a', { kind: 'proceed' }),
      asking('b', { kind: 'end', status: 'paused', reason: 'r' }),
      asking('c', { kind: 'proceed' }),
    ]);
    expect(await set.beforeModelCall(tick)).toEqual({ kind: 'end', status: 'paused', reason: 'r' });
    expect(asked).toEqual(['a', 'b']);
    expect(await new GuardSet([]).beforeModelCall(tick)).toEqual({ kind: 'proceed' });
  });

  it('reports which family refused a tool call', () => {
    const set = new GuardSet([
      { name: 'a', beforeToolCall: () => ({ kind: 'allow' }) },
      { name: 'b', beforeToolCall: () => ({ kind: 'refuse', message: 'no' }) },
      { name: 'c', beforeToolCall: () => ({ kind: 'refuse', message: 'never asked' }) },
    ]);
    expect(set.beforeToolCall(tick, call)).toEqual({ kind: 'refuse', message: 'no', by: 'b' });
  });

  it('adds families’ tools, ephemeral blocks and reports (knobs, gates) after the tree’s own', () => {
    const tool = { name: 'submit', inputSchema: {} as never, source: 'runtime' as const };
    const knob = { name: 'mode', description: 'Mode', value: 'plan' };
    const set = new GuardSet([
      { name: 'a', render: () => ({ ephemeral: [{ text: 'from a' }] }) },
      { name: 'b', render: () => ({ reports: { knobs: [knob], gates: [] } }) },
      { name: 'c', render: () => ({ tools: [tool], ephemeral: [{ text: 'from c' }] }) },
      { name: 'd', render: () => undefined },
    ]);
    const tree = { system: '', messages: [], tools: [], ephemeral: [{ text: 'tree' }] };
    expect(set.render(tree)).toEqual({
      tools: [tool],
      ephemeral: [{ text: 'tree' }, { text: 'from a' }, { text: 'from c' }],
      reports: { knobs: [knob], gates: [] },
      leftOut: [],
    });
  });

  it('leaves out a tree tool that gives way under a family’s own tool name, or one it adds', () => {
    const of = (name: string, givesWay?: string) => ({
      name,
      inputSchema: {} as never,
      source: 'component' as const,
      ...(givesWay !== undefined ? { givesWay } : {}),
    });
    const seen: string[][] = [];
    const set = new GuardSet([
      { name: 'output', reservedTools: ['final_answer'] },
      {
        name: 'subagents',
        render: (tree) => {
          seen.push(tree.tools.map((t) => t.name));
          return { tools: [{ ...of('lookup'), source: 'runtime' as const }] };
        },
      },
    ]);
    const mine = of('final_answer');
    const tree = {
      system: '',
      messages: [],
      tools: [of('final_answer', 'srv'), of('lookup', 'srv'), of('keep', 'srv'), of('step')],
      ephemeral: [],
    };
    const rendered = set.render(tree);
    // Families never see a server's tool under a reserved name; a <Tool> of the agent's own
    // under it is theirs to refuse.
    expect(seen).toEqual([['lookup', 'keep', 'step']]);
    expect(rendered.tools.map((t) => [t.name, t.source])).toEqual([
      ['keep', 'component'],
      ['step', 'component'],
      ['lookup', 'runtime'],
    ]);
    expect(rendered.leftOut).toEqual([
      { name: 'final_answer', server: 'srv', takenBy: "the output family's own tool" },
      { name: 'lookup', server: 'srv', takenBy: 'a tool of the subagents family' },
    ]);
    expect(set.render({ ...tree, tools: [mine] }).tools[0]).toBe(mine);
  });

  it('collects what is still engaged at maxTicks, and every family’s report', () => {
    const set = new GuardSet([
      {
        name: 'a',
        engagedAtMaxTicks: () => ['gate "g" is active (d)'],
        report: () => ({ knobs: { k: 1 } }),
      },
      { name: 'b', engagedAtMaxTicks: () => [], report: () => ({ gates: { g: 'active' } }) },
    ]);
    expect(set.engagedAtMaxTicks()).toEqual(['gate "g" is active (d)']);
    expect(set.report()).toEqual({ knobs: { k: 1 }, gates: { g: 'active' } });
  });

  it('skips the per-call hooks of a family that is not engaged, from one render to the next', () => {
    const asked: string[] = [];
    let engaged = false;
    const family: Guard = {
      name: 'sometimes',
      engaged: () => engaged,
      beforeModelCall: () => {
        asked.push('beforeModelCall');
        return { kind: 'proceed' };
      },
      beforeToolCall: () => {
        asked.push('beforeToolCall');
        return { kind: 'refuse', message: 'no' };
      },
      exitAttempt: () => {
        asked.push('exitAttempt');
        return { kind: 'allow' };
      },
    };
    const set = new GuardSet([family]);
    const tree = { system: '', messages: [], tools: [], ephemeral: [] };
    set.render(tree);
    expect(set.beforeModelCall(tick)).toEqual({ kind: 'proceed' });
    expect(set.beforeToolCall(tick, call)).toEqual({ kind: 'allow' });
    // An exit is always judged by every family, engaged or not.
    expect(set.exitAttempt(tick)).toEqual({ kind: 'allow' });
    expect(asked).toEqual(['exitAttempt']);

    engaged = true;
    // Until the next render the lists stay as they were.
    expect(set.beforeToolCall(tick, call)).toEqual({ kind: 'allow' });
    set.render(tree);
    set.beforeModelCall(tick);
    expect(set.beforeToolCall(tick, call)).toMatchObject({ kind: 'refuse', by: 'sometimes' });
    expect(asked).toEqual(['exitAttempt', 'beforeModelCall', 'beforeToolCall']);
  });
});
