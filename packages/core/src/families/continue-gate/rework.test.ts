import { describe, expect, it } from 'vitest';
import type { TickResult, TickToolCall } from '../../state/tick-result.js';
import { callSignature } from '../../state/update.js';
import { detectRework } from './rework.js';

function tick(...calls: Array<[string, unknown]>): TickResult {
  return {
    tick: 3,
    toolCalls: calls.map(([toolName, input], i) => ({ toolCallId: `c${i}`, toolName, input })),
    toolResults: [],
    text: '',
    finishReason: 'tool-calls',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
}

describe('detectRework (default)', () => {
  it('flags a call identical to an earlier one, whatever the key order', () => {
    const previous = [callSignature('read', { path: 'a', lines: 10 })];
    expect(detectRework(tick(['read', { lines: 10, path: 'a' }]), previous)).toBe(true);
  });

  it('does not flag a call with different arguments or another tool', () => {
    const previous = [callSignature('read', { path: 'a' })];
    expect(detectRework(tick(['read', { path: 'b' }], ['write', { path: 'a' }]), previous)).toBe(
      false,
    );
  });

  it('flags the second of two identical calls in one reply', () => {
    expect(detectRework(tick(['read', { path: 'a' }], ['read', { path: 'a' }]), [])).toBe(true);
  });

  it('never counts set_knob as rework', () => {
    const input = { name: 'mode', value: 'fast' };
    const previous = [callSignature('set_knob', input)];
    expect(detectRework(tick(['set_knob', input], ['set_knob', input]), previous)).toBe(false);
  });

  it('is not rework when there are no calls', () => {
    expect(detectRework(tick(), ['read:{}'])).toBe(false);
  });
});

describe('detectRework (custom isRework)', () => {
  it('gets the earlier calls and an isRepeat that knows about earlier calls in the same reply', () => {
    const result = tick(['read', { path: 'a' }], ['read', { path: 'a' }], ['read', { path: 'b' }]);
    const seen: boolean[] = [];
    const flagged = detectRework(result, ['read:{"path":"b"}'], (t, history) => {
      expect(history.previousCalls).toEqual(['read:{"path":"b"}']);
      for (const call of t.toolCalls) seen.push(history.isRepeat(call));
      // A copy of a call is judged against earlier ticks only.
      seen.push(history.isRepeat({ ...(t.toolCalls[0] as TickToolCall) }));
      return false;
    });
    expect(flagged).toBe(false);
    expect(seen).toEqual([false, true, true, false]);
  });

  it('counts only a literal true', () => {
    const truthy = (() => 1) as unknown as () => boolean;
    expect(detectRework(tick(['x', {}]), [], truthy)).toBe(false);
    expect(detectRework(tick(['x', {}]), [], () => true)).toBe(true);
  });

  it('names the prop and the tick when it throws', () => {
    const boom = () => {
      throw new Error('boom');
    };
    expect(() => detectRework(tick(['x', {}]), [], boom)).toThrow(
      "The ContinueGate's isRework threw on tick 3: boom",
    );
  });
});
