import { scaledLimit } from '@agate/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidContinueConfigError, type StepContext } from './continue-gate-config.js';
import { ContinueGateEvaluator, DEFAULT_MAX_HISTORY } from './continue-gate-evaluator.js';

function ctx(overrides: Partial<StepContext> = {}): StepContext {
  return {
    stepNumber: 1,
    totalTokensUsed: 0,
    totalToolCalls: 0,
    reworkCount: 0,
    coherenceScore: 0.9,
    uncertaintyScore: 0.1,
    budgetRemaining: {},
    lastCheckpointStep: 0,
    ...overrides,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ContinueGateEvaluator', () => {
  it('evaluates with its config and records each evaluation with time and step', () => {
    vi.useFakeTimers();
    vi.setSystemTime(1_700_000_000_000);
    const gate = new ContinueGateEvaluator({ minCoherenceForContinue: 0.95 });
    const evaluation = gate.evaluate(ctx({ stepNumber: 3 }));
    expect(evaluation.decision).toBe('stop');
    expect(gate.history).toEqual([{ at: 1_700_000_000_000, stepNumber: 3, evaluation }]);
  });

  it('validates config and options at construction', () => {
    expect(() => new ContinueGateEvaluator({ maxReworkRatio: -1 })).toThrow(
      InvalidContinueConfigError,
    );
    for (const maxHistory of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new ContinueGateEvaluator({}, { maxHistory })).toThrow(/maxHistory/);
    }
    expect(new ContinueGateEvaluator().maxHistory).toBe(DEFAULT_MAX_HISTORY);
  });

  it('counts every decision ever made and reports the latest metrics', () => {
    const gate = new ContinueGateEvaluator();
    gate.evaluate(ctx());
    gate.evaluate(ctx({ coherenceScore: 0.1 }));
    gate.evaluate(ctx({ uncertaintyScore: 0.9 }));
    gate.evaluate(ctx({ stepTokens: [50, 100, 200] }));
    const last = gate.evaluate(ctx({ stepNumber: 30 }));
    const stats = gate.stats();
    expect(stats.evaluations).toBe(5);
    expect(stats.counts).toEqual({ stop: 1, pause: 1, throttle: 1, checkpoint: 1, continue: 1 });
    expect(stats.latest).toEqual(last.metrics);
  });

  it('has no latest metrics and a zero mean before any evaluation', () => {
    const stats = new ContinueGateEvaluator().stats();
    expect(stats).toEqual({
      evaluations: 0,
      counts: { stop: 0, pause: 0, throttle: 0, checkpoint: 0, continue: 0 },
      meanBudgetSlope: 0,
    });
    expect('latest' in stats).toBe(false);
  });

  it('caps history, dropping the oldest, while counts cover every evaluation', () => {
    const gate = new ContinueGateEvaluator({}, { maxHistory: 5 });
    for (let step = 0; step < 12; step++) gate.evaluate(ctx({ stepNumber: step }));
    expect(gate.history).toHaveLength(5);
    expect(gate.history.map((e) => e.stepNumber)).toEqual([7, 8, 9, 10, 11]);
    expect(gate.stats().evaluations).toBe(12);
  });

  it('takes the mean budget slope over retained history only', () => {
    const gate = new ContinueGateEvaluator({}, { maxHistory: 2 });
    gate.evaluate(ctx({ stepTokens: [90, 100, 110] })); // 0.1, dropped below
    gate.evaluate(ctx({ stepTokens: [98, 100, 102] })); // 0.02
    gate.evaluate(ctx({ stepTokens: [99, 100, 101] })); // 0.01
    expect(gate.stats().meanBudgetSlope).toBeCloseTo(0.015, 12);
  });

  it('keeps memory flat and time linear over 1,000,000 evaluations', () => {
    const gate = new ContinueGateEvaluator({}, { maxHistory: 1_000 });
    const tokens = [100, 102, 104, 106];
    const context = ctx({ stepTokens: tokens });
    const started = performance.now();
    for (let i = 0; i < 1_000_000; i++) {
      context.stepNumber = i % 90;
      gate.evaluate(context);
    }
    const elapsed = performance.now() - started;
    expect(gate.history).toHaveLength(1_000);
    expect(gate.history[0]?.stepNumber).toBe((1_000_000 - 1_000) % 90);
    expect(gate.history.at(-1)?.stepNumber).toBe((1_000_000 - 1) % 90);
    expect(gate.stats().evaluations).toBe(1_000_000);
    // Every retained evaluation saw the same tokens, so the running mean must match exactly-ish.
    expect(gate.stats().meanBudgetSlope).toBeCloseTo(
      gate.history[0]!.evaluation.metrics.budgetSlope,
      12,
    );
    // A generous bound: an O(n * maxHistory) history would take minutes here.
    expect(elapsed).toBeLessThan(scaledLimit(15_000));
  });

  it('hands out a read-only history that later evaluations do not change', () => {
    const gate = new ContinueGateEvaluator({}, { maxHistory: 3 });
    gate.evaluate(ctx({ stepNumber: 1 }));
    const before = gate.history;
    gate.evaluate(ctx({ stepNumber: 2 }));
    expect(before.map((e) => e.stepNumber)).toEqual([1]);
    expect(Object.isFrozen(before)).toBe(true);
    expect(gate.history).toBe(gate.history);
  });

  it('reset() forgets history, counts and latest', () => {
    const gate = new ContinueGateEvaluator({}, { maxHistory: 2 });
    for (let step = 0; step < 5; step++)
      gate.evaluate(ctx({ stepNumber: step, stepTokens: [1, 2, 3] }));
    gate.reset();
    expect(gate.history).toEqual([]);
    expect(gate.stats()).toEqual(new ContinueGateEvaluator().stats());
    gate.evaluate(ctx({ stepNumber: 9 }));
    expect(gate.history.map((e) => e.stepNumber)).toEqual([9]);
    expect(gate.stats().evaluations).toBe(1);
  });
});
