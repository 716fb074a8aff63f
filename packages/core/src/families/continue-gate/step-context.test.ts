import { describe, expect, it } from 'vitest';
import { createInitialState } from '../../guard-seam/initial-state.js';
import type { SessionState } from '../../state/session-state.js';
import { DEFAULT_CONTINUE_CONFIG, InvalidContinueConfigError } from './continue-gate-config.js';
import { checkContinueProps } from './continue-gate-props.js';
import { buildStepContext } from './step-context.js';

function state(): SessionState {
  const s = createInitialState('s');
  s.usage = { inputTokens: 900, outputTokens: 100, totalTokens: 1000 };
  s.toolCalls = 7;
  s.guards.continue = {
    stepNumber: 4,
    lastCheckpointStep: 2,
    reworkCount: 1,
    stepTokens: [200, 250, 250, 300],
    callSignatures: [],
    elapsedMs: 1500,
  };
  return s;
}

describe('buildStepContext', () => {
  it('reads progress, usage and tool calls from the state; scores default to 1 and 0', () => {
    const s = state();
    expect(buildStepContext(s, {}, { state: s, recentTicks: [] })).toEqual({
      stepNumber: 4,
      totalTokensUsed: 1000,
      totalToolCalls: 7,
      reworkCount: 1,
      coherenceScore: 1,
      uncertaintyScore: 0,
      budgetRemaining: {},
      lastCheckpointStep: 2,
      stepTokens: [200, 250, 250, 300],
    });
  });

  it('subtracts what was used from each given budget dimension only', () => {
    const s = state();
    const signals = { state: s, recentTicks: [] };
    expect(
      buildStepContext(s, { budget: { tokens: 1200, timeMs: 1000 } }, signals).budgetRemaining,
    ).toEqual({ tokens: 200, timeMs: -500 });
    expect(buildStepContext(s, { budget: { toolCalls: 7 } }, signals).budgetRemaining).toEqual({
      toolCalls: 0,
    });
  });

  it('calls the score functions with the signals', () => {
    const s = state();
    const step = buildStepContext(
      s,
      {
        coherence: ({ state }) => state.tick + 0.5,
        uncertainty: ({ recentTicks }) => recentTicks.length,
      },
      { state: s, recentTicks: [] },
    );
    expect([step.coherenceScore, step.uncertaintyScore]).toEqual([0.5, 0]);
  });

  it('passes a non-number score on as NaN and names a throwing function', () => {
    const s = state();
    const signals = { state: s, recentTicks: [] };
    const text = (() => 'high') as unknown as () => number;
    expect(buildStepContext(s, { coherence: text }, signals).coherenceScore).toBeNaN();
    const boom = () => {
      throw new Error('judge offline');
    };
    expect(() => buildStepContext(s, { coherence: boom }, signals)).toThrow(
      "The ContinueGate's coherence function threw: judge offline",
    );
  });
});

describe('checkContinueProps', () => {
  it('resolves the config over the defaults', () => {
    expect(checkContinueProps({ cooldownMs: 10, budget: { tokens: 5 } })).toEqual({
      ...DEFAULT_CONTINUE_CONFIG,
      cooldownMs: 10,
    });
  });

  it.each([
    [{ tokens: -1 }, 'budget.tokens', -1],
    [{ toolCalls: Number.NaN }, 'budget.toolCalls', Number.NaN],
    [{ timeMs: '60s' }, 'budget.timeMs', '60s'],
  ])('rejects budget %o', (budget, field, value) => {
    const error = (() => {
      try {
        checkContinueProps({ budget: budget as { tokens?: number } });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidContinueConfigError);
    expect(error).toMatchObject({ field, value });
  });

  it('accepts 0 and Infinity budgets and rejects a budget that is not an object', () => {
    expect(() => checkContinueProps({ budget: { tokens: 0, timeMs: Infinity } })).not.toThrow();
    expect(() => checkContinueProps({ budget: 5 as unknown as { tokens: number } })).toThrow(
      'ContinueGate "budget" must be an object like { tokens, toolCalls, timeMs }, got 5.',
    );
  });
});
