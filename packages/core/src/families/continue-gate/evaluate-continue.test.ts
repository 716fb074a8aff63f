import { describe, expect, it } from 'vitest';
import {
  type ContinueGateConfig,
  DEFAULT_CONTINUE_CONFIG,
  InvalidContinueConfigError,
  type StepContext,
} from './continue-gate-config.js';
import { evaluateContinue } from './evaluate-continue.js';

/** A context where no rule fires under the default config. */
function ctx(overrides: Partial<StepContext> = {}): StepContext {
  return {
    stepNumber: 10,
    totalTokensUsed: 10_000,
    totalToolCalls: 5,
    reworkCount: 0,
    coherenceScore: 0.9,
    uncertaintyScore: 0.1,
    budgetRemaining: {},
    lastCheckpointStep: 0,
    ...overrides,
  };
}

describe('evaluateContinue: continue', () => {
  it('continues with no reasons when nothing fires', () => {
    const result = evaluateContinue(ctx());
    expect(result.decision).toBe('continue');
    expect(result.reasons).toEqual([]);
    expect(result.metrics).toEqual({
      budgetSlope: 0,
      reworkRatio: 0,
      coherenceLevel: 0.9,
      uncertaintyLevel: 0.1,
      stepsUntilCheckpoint: 15,
    });
  });
});

describe('evaluateContinue: stop on coherence', () => {
  it.each([
    [0.39, 'stop'],
    [0.4, 'continue'],
    [0.41, 'continue'],
  ])('coherence %s -> %s', (coherenceScore, decision) => {
    expect(evaluateContinue(ctx({ coherenceScore })).decision).toBe(decision);
  });

  it('names the value and the minimum', () => {
    expect(evaluateContinue(ctx({ coherenceScore: 0.35 })).reasons).toEqual([
      'coherence 0.35 is below the minimum 0.4',
    ]);
  });

  it('never prints a value that crossed the threshold as the threshold', () => {
    const [reason] = evaluateContinue(ctx({ coherenceScore: 0.3999999 })).reasons;
    expect(reason).toBe('coherence 0.3999999 is below the minimum 0.4');
  });

  it('treats NaN coherence as 0: a missing signal is not evidence the agent is on track', () => {
    const result = evaluateContinue(ctx({ coherenceScore: Number.NaN }));
    expect(result.decision).toBe('stop');
    expect(result.metrics.coherenceLevel).toBe(0);
    expect(result.reasons).toEqual(['coherence NaN (treated as 0) is below the minimum 0.4']);
  });

  it('clamps coherence to 0..1', () => {
    expect(evaluateContinue(ctx({ coherenceScore: 1.7 })).metrics.coherenceLevel).toBe(1);
    const low = evaluateContinue(ctx({ coherenceScore: -0.2 }));
    expect(low.metrics.coherenceLevel).toBe(0);
    expect(low.reasons[0]).toBe('coherence -0.2 (treated as 0) is below the minimum 0.4');
  });
});

describe('evaluateContinue: stop on consecutive steps', () => {
  it.each([
    [99, 'continue'],
    [100, 'stop'],
    [101, 'stop'],
  ])('step %s -> %s', (stepNumber, decision) => {
    // A recent checkpoint keeps the checkpoint rule out of the way.
    const result = evaluateContinue(ctx({ stepNumber, lastCheckpointStep: 90 }));
    expect(result.decision).toBe(decision);
  });

  it('names the step and the limit', () => {
    expect(evaluateContinue(ctx({ stepNumber: 100, lastCheckpointStep: 90 })).reasons).toEqual([
      'step 100 has reached the limit of 100 consecutive steps without a person resuming the run',
    ]);
  });

  it('stops on a NaN step number', () => {
    const result = evaluateContinue(ctx({ stepNumber: Number.NaN }));
    expect(result.decision).toBe('stop');
    expect(result.reasons[0]).toMatch(/step number is not a number/);
  });
});

describe('evaluateContinue: stop on budget', () => {
  const dims = [
    ['tokens', /^token budget is exhausted: /],
    ['toolCalls', /^tool-call budget is exhausted: /],
    ['timeMs', /^time budget is exhausted: .* ms remaining/],
  ] as const;

  for (const [key, pattern] of dims) {
    it.each([
      [1, 'continue'],
      [0.001, 'continue'],
      [0, 'stop'],
      [-1, 'stop'],
    ])(`${key} remaining %s -> %s`, (remaining, decision) => {
      const result = evaluateContinue(ctx({ budgetRemaining: { [key]: remaining } }));
      expect(result.decision).toBe(decision);
      if (decision === 'stop') {
        expect(result.reasons).toHaveLength(1);
        expect(result.reasons[0]).toMatch(pattern);
      }
    });

    it(`treats a NaN ${key} budget as exhausted`, () => {
      const result = evaluateContinue(ctx({ budgetRemaining: { [key]: Number.NaN } }));
      expect(result.decision).toBe('stop');
      expect(result.reasons[0]).toMatch(/treated as exhausted/);
    });
  }

  it('ignores dimensions that are not given, or unlimited', () => {
    expect(evaluateContinue(ctx({ budgetRemaining: {} })).decision).toBe('continue');
    expect(
      evaluateContinue(ctx({ budgetRemaining: { tokens: Number.POSITIVE_INFINITY } })).decision,
    ).toBe('continue');
  });

  it('treats null as not given, since JSON stores an unlimited budget as null', () => {
    const budgetRemaining = JSON.parse('{"tokens":null}') as StepContext['budgetRemaining'];
    expect(evaluateContinue(ctx({ budgetRemaining })).decision).toBe('continue');
  });

  it('lists every exhausted dimension', () => {
    const result = evaluateContinue(
      ctx({ budgetRemaining: { tokens: 0, toolCalls: 0, timeMs: 0 } }),
    );
    expect(result.reasons).toHaveLength(3);
  });
});

describe('evaluateContinue: pause on rework', () => {
  it.each([
    [2, 'continue'],
    [3, 'continue'],
    [4, 'pause'],
  ])('%s rework steps of 10 -> %s', (reworkCount, decision) => {
    expect(evaluateContinue(ctx({ stepNumber: 10, reworkCount })).decision).toBe(decision);
  });

  it('is just over the maximum by the smallest margin', () => {
    const stepNumber = 1_000_000;
    const at = evaluateContinue(ctx({ stepNumber, reworkCount: 300_000 }), {
      maxConsecutiveSteps: 2_000_000,
      checkpointIntervalSteps: 2_000_000,
    });
    const over = evaluateContinue(ctx({ stepNumber, reworkCount: 300_001 }), {
      maxConsecutiveSteps: 2_000_000,
      checkpointIntervalSteps: 2_000_000,
    });
    expect(at.decision).toBe('continue');
    expect(over.decision).toBe('pause');
  });

  it('names the ratio, the counts and the maximum', () => {
    expect(evaluateContinue(ctx({ stepNumber: 20, reworkCount: 7 })).reasons).toEqual([
      'rework ratio 0.35 (7 of 20 steps) is above the maximum 0.3',
    ]);
  });

  it('is 0 at step 0', () => {
    const result = evaluateContinue(ctx({ stepNumber: 0, reworkCount: 3 }));
    expect(result.metrics.reworkRatio).toBe(0);
    expect(result.decision).toBe('continue');
  });

  it('pauses on a NaN rework count', () => {
    const result = evaluateContinue(ctx({ reworkCount: Number.NaN }));
    expect(result.decision).toBe('pause');
    expect(result.reasons[0]).toMatch(/rework ratio is not a number/);
  });
});

describe('evaluateContinue: pause on uncertainty', () => {
  it.each([
    [0.79, 'continue'],
    [0.8, 'continue'],
    [0.81, 'pause'],
  ])('uncertainty %s -> %s', (uncertaintyScore, decision) => {
    expect(evaluateContinue(ctx({ uncertaintyScore })).decision).toBe(decision);
  });

  it('names the value and the maximum', () => {
    expect(evaluateContinue(ctx({ uncertaintyScore: 0.85 })).reasons).toEqual([
      'uncertainty 0.85 is above the maximum 0.8',
    ]);
  });

  it('treats NaN uncertainty as 1', () => {
    const result = evaluateContinue(ctx({ uncertaintyScore: Number.NaN }));
    expect(result.decision).toBe('pause');
    expect(result.metrics.uncertaintyLevel).toBe(1);
    expect(result.reasons).toEqual(['uncertainty NaN (treated as 1) is above the maximum 0.8']);
  });
});

describe('evaluateContinue: throttle on budget slope', () => {
  it.each([
    [[99, 100, 101], 'continue'], // 1% per step
    [[98, 100, 102], 'continue'], // exactly 2%
    [[97, 100, 103], 'throttle'], // 3%
  ])('%j -> %s', (stepTokens, decision) => {
    expect(evaluateContinue(ctx({ stepTokens })).decision).toBe(decision);
  });

  it('throttles just over the maximum', () => {
    const result = evaluateContinue(ctx({ stepTokens: [97.99, 100, 102.01] }));
    expect(result.decision).toBe('throttle');
  });

  it('names the slope as a growth rate and the maximum', () => {
    const result = evaluateContinue(ctx({ stepTokens: [97, 100, 103] }));
    expect(result.metrics.budgetSlope).toBeCloseTo(0.03, 12);
    expect(result.reasons).toEqual([
      'budget slope 0.03 per step (per-step token spend growing 3% per step) is above the maximum 0.02',
    ]);
  });

  it('does not throttle a run with steady per-step spend', () => {
    const stepTokens = Array.from({ length: 30 }, () => 2_000);
    expect(evaluateContinue(ctx({ stepTokens })).decision).toBe('continue');
  });
});

describe('evaluateContinue: checkpoint', () => {
  it.each([
    [24, 'continue', 1],
    [25, 'checkpoint', 0],
    [26, 'checkpoint', 0],
  ])('step %s since checkpoint -> %s', (stepNumber, decision, stepsUntilCheckpoint) => {
    const result = evaluateContinue(ctx({ stepNumber, lastCheckpointStep: 0 }));
    expect(result.decision).toBe(decision);
    expect(result.metrics.stepsUntilCheckpoint).toBe(stepsUntilCheckpoint);
  });

  it('counts from the last checkpoint', () => {
    expect(evaluateContinue(ctx({ stepNumber: 74, lastCheckpointStep: 50 })).decision).toBe(
      'continue',
    );
    expect(evaluateContinue(ctx({ stepNumber: 75, lastCheckpointStep: 50 })).reasons).toEqual([
      '25 steps since the last checkpoint (at step 50) reach the interval of 25',
    ]);
  });
});

describe('evaluateContinue: priority', () => {
  const everything: Partial<StepContext> = {
    stepNumber: 100,
    coherenceScore: 0.1,
    reworkCount: 50,
    uncertaintyScore: 0.95,
    stepTokens: [50, 100, 200],
    lastCheckpointStep: 0,
    budgetRemaining: { tokens: 0 },
  };

  it('lets stop win and lists every rule that fired, in priority order', () => {
    const result = evaluateContinue(ctx(everything));
    expect(result.decision).toBe('stop');
    expect(result.reasons.map((r) => r.split(' ')[0])).toEqual([
      'coherence',
      'step',
      'token',
      'rework',
      'uncertainty',
      'budget',
      '100',
    ]);
  });

  it('falls through stop -> pause -> throttle -> checkpoint', () => {
    const noStop = { ...everything, stepNumber: 99, coherenceScore: 0.9, budgetRemaining: {} };
    expect(evaluateContinue(ctx(noStop)).decision).toBe('pause');
    const noPause = { ...noStop, reworkCount: 0, uncertaintyScore: 0 };
    expect(evaluateContinue(ctx(noPause)).decision).toBe('throttle');
    const noThrottle = { ...noPause, stepTokens: [] };
    expect(evaluateContinue(ctx(noThrottle)).decision).toBe('checkpoint');
  });
});

describe('evaluateContinue: config', () => {
  it('uses the documented defaults', () => {
    expect(DEFAULT_CONTINUE_CONFIG).toEqual({
      maxConsecutiveSteps: 100,
      checkpointIntervalSteps: 25,
      minCoherenceForContinue: 0.4,
      maxUncertaintyForContinue: 0.8,
      maxReworkRatio: 0.3,
      maxBudgetSlopePerStep: 0.02,
      cooldownMs: 5000,
    });
  });

  it('applies a partial config over the defaults', () => {
    expect(
      evaluateContinue(ctx({ coherenceScore: 0.5 }), { minCoherenceForContinue: 0.6 }).decision,
    ).toBe('stop');
    expect(
      evaluateContinue(ctx({ coherenceScore: 0.5 }), { minCoherenceForContinue: undefined })
        .decision,
    ).toBe('continue');
  });

  it.each([
    ['maxConsecutiveSteps', Number.NaN],
    ['checkpointIntervalSteps', Number.POSITIVE_INFINITY],
    ['minCoherenceForContinue', -0.1],
    ['maxBudgetSlopePerStep', Number.NEGATIVE_INFINITY],
    ['cooldownMs', '5000'],
  ])('rejects %s = %s with a typed error', (field, value) => {
    const config = { [field]: value } as unknown as Partial<ContinueGateConfig>;
    let caught: unknown;
    try {
      evaluateContinue(ctx(), config);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidContinueConfigError);
    const error = caught as InvalidContinueConfigError;
    expect(error.name).toBe('InvalidContinueConfigError');
    expect(error.field).toBe(field);
    expect(error.message).toContain(`"${field}"`);
    expect(error.message).toContain(typeof value === 'string' ? `"${value}"` : String(value));
  });

  it('accepts zero thresholds', () => {
    expect(evaluateContinue(ctx(), { checkpointIntervalSteps: 0 }).decision).toBe('checkpoint');
    expect(evaluateContinue(ctx(), { maxConsecutiveSteps: 0 }).decision).toBe('stop');
  });
});
