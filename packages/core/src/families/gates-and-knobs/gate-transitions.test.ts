import { describe, expect, it, vi } from 'vitest';
import type { GateStatus } from '../../state/session-state.js';
import type { TickResult, TickToolCall } from '../../state/tick-result.js';
import {
  GatePredicateError,
  gateTransitionsAtTickEnd,
  withoutSetKnob,
} from './gate-transitions.js';
import type { GateDescriptor, GateHistory } from './gate-types.js';

const edits = (tick: TickResult) => tick.toolCalls.some((c) => c.toolName === 'write_file');

function tickOf(...names: string[]): TickResult {
  const toolCalls: TickToolCall[] = names.map((toolName, i) => ({
    toolCallId: `c${i}`,
    toolName,
    input: toolName === 'set_knob' ? { name: 'verification', value: 'inactive' } : {},
  }));
  return {
    tick: 1,
    toolCalls,
    toolResults: toolCalls.map((c) => ({
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      output: 'ok',
      isError: false,
    })),
    text: '',
    finishReason: names.length > 0 ? 'tool-calls' : 'stop',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
}

const history: GateHistory = { ticks: [], timeline: [] };

function gateAt(state: GateStatus, descriptor: Partial<GateDescriptor> = {}) {
  return {
    name: 'verification',
    state,
    descriptor: { description: 'Verify', instructions: 'Run the tests.', ...descriptor },
  };
}

describe('activateWhen at tick end', () => {
  it('activates an inactive gate when the tick matches, as the runtime', () => {
    expect(
      gateTransitionsAtTickEnd(
        [gateAt('inactive', { activateWhen: edits })],
        tickOf('write_file'),
        history,
      ),
    ).toEqual([
      {
        gate: 'verification',
        from: 'inactive',
        to: 'active',
        by: 'runtime',
        reason: 'activateWhen matched this tick',
      },
    ]);
  });

  it('does nothing when the tick does not match', () => {
    expect(
      gateTransitionsAtTickEnd(
        [gateAt('inactive', { activateWhen: edits })],
        tickOf('read_file'),
        history,
      ),
    ).toEqual([]);
  });

  it('is a one-way ratchet: never asked while the gate is active or deferred', () => {
    for (const state of ['active', 'deferred'] as const) {
      const activateWhen = vi.fn(() => true);
      expect(
        gateTransitionsAtTickEnd([gateAt(state, { activateWhen })], tickOf('write_file'), history),
      ).toEqual([]);
      expect(activateWhen).not.toHaveBeenCalled();
    }
  });

  it('does not see set_knob calls or their results', () => {
    const activateWhen = vi.fn((tick: TickResult) => tick.toolCalls.length > 0);
    const tick = tickOf('set_knob', 'read_file', 'set_knob');
    gateTransitionsAtTickEnd([gateAt('inactive', { activateWhen })], tick, history);
    const seen = activateWhen.mock.calls[0]![0];
    expect(seen.toolCalls.map((c) => c.toolName)).toEqual(['read_file']);
    expect(seen.toolResults.map((r) => r.toolName)).toEqual(['read_file']);

    // A tick made only of set_knob calls is not work, even for "any call" predicates.
    expect(
      gateTransitionsAtTickEnd([gateAt('inactive', { activateWhen })], tickOf('set_knob'), history),
    ).toEqual([]);
  });

  it('only a literal true activates', () => {
    const truthy = (() => 'yes') as unknown as (tick: TickResult) => boolean;
    expect(
      gateTransitionsAtTickEnd(
        [gateAt('inactive', { activateWhen: truthy })],
        tickOf('write_file'),
        history,
      ),
    ).toEqual([]);
  });

  it('clear-then-edit and edit-then-clear in one tick both end active', () => {
    // The clear (set_knob) was applied during the tick, so the gate is inactive at tick end
    // whichever order the calls came in; activateWhen then sees the edit.
    for (const order of [
      ['set_knob', 'write_file'],
      ['write_file', 'set_knob'],
    ]) {
      const transitions = gateTransitionsAtTickEnd(
        [gateAt('inactive', { activateWhen: edits })],
        tickOf(...order),
        history,
      );
      expect(transitions.map((t) => t.to)).toEqual(['active']);
    }
  });
});

describe('clearWhen at tick end', () => {
  it('clears an engaged gate from evidence, as the host, with the full tick and history', () => {
    const clearWhen = vi.fn(() => true);
    const tick = tickOf('set_knob', 'run_tests');
    const past: GateHistory = { ticks: [tick], timeline: [{ role: 'user', content: 'hi' }] };
    for (const state of ['active', 'deferred'] as const) {
      expect(gateTransitionsAtTickEnd([gateAt(state, { clearWhen })], tick, past)).toEqual([
        {
          gate: 'verification',
          from: state,
          to: 'inactive',
          by: 'host',
          reason: 'clearWhen verified the evidence',
        },
      ]);
    }
    // clearWhen sees everything, set_knob included: it judges evidence, not work.
    expect(clearWhen).toHaveBeenCalledWith(tick, past);
  });

  it('is not asked while the gate is inactive', () => {
    const clearWhen = vi.fn(() => true);
    expect(
      gateTransitionsAtTickEnd([gateAt('inactive', { clearWhen })], tickOf('x'), history),
    ).toEqual([]);
    expect(clearWhen).not.toHaveBeenCalled();
  });

  it('runs after activateWhen: a tick that edits and proves it ends inactive', () => {
    const transitions = gateTransitionsAtTickEnd(
      [
        gateAt('inactive', {
          activateWhen: edits,
          clearWhen: (tick) => tick.toolCalls.at(-1)?.toolName === 'run_tests',
        }),
      ],
      tickOf('write_file', 'run_tests'),
      history,
    );
    expect(transitions.map((t) => `${t.from}->${t.to} by ${t.by}`)).toEqual([
      'inactive->active by runtime',
      'active->inactive by host',
    ]);
  });
});

describe('throwing predicates', () => {
  it('throw a GatePredicateError naming the gate and the predicate, and apply nothing', () => {
    const boom = () => {
      throw new Error('boom');
    };
    const gates = [
      { ...gateAt('inactive', { activateWhen: edits }), name: 'a' },
      { ...gateAt('inactive', { activateWhen: boom }), name: 'b' },
    ];
    let caught: unknown;
    try {
      gateTransitionsAtTickEnd(gates, tickOf('write_file'), history);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatePredicateError);
    expect((caught as GatePredicateError).message).toBe(
      'Gate "b": activateWhen threw at tick end: boom. Fix the predicate; it must return a boolean for any finished tick.',
    );
    expect((caught as GatePredicateError).gate).toBe('b');
    expect(() =>
      gateTransitionsAtTickEnd([gateAt('active', { clearWhen: boom })], tickOf(), history),
    ).toThrow('Gate "verification": clearWhen threw at tick end: boom.');
  });
});

describe('withoutSetKnob', () => {
  it('returns the same tick when there is no set_knob call', () => {
    const tick = tickOf('write_file');
    expect(withoutSetKnob(tick)).toBe(tick);
  });
});
