import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ContinueDecision,
  type ContinueGateConfig,
  DEFAULT_CONTINUE_CONFIG,
  type StepContext,
} from './continue-gate-config.js';
import { evaluateContinue } from './evaluate-continue.js';
import { budgetSlope } from './slope.js';

type Rule =
  | 'coherence'
  | 'steps'
  | 'tokens'
  | 'toolCalls'
  | 'timeMs'
  | 'rework'
  | 'uncertainty'
  | 'slope'
  | 'checkpoint';

/** Rules in priority order, with the decision each leads to and how its reason reads. */
const RULES: ReadonlyArray<{ rule: Rule; decision: ContinueDecision; reason: RegExp }> = [
  { rule: 'coherence', decision: 'stop', reason: /^coherence / },
  { rule: 'steps', decision: 'stop', reason: /^step (number|-?\d)/ },
  { rule: 'tokens', decision: 'stop', reason: /^token budget / },
  { rule: 'toolCalls', decision: 'stop', reason: /^tool-call budget / },
  { rule: 'timeMs', decision: 'stop', reason: /^time budget / },
  { rule: 'rework', decision: 'pause', reason: /^rework ratio / },
  { rule: 'uncertainty', decision: 'pause', reason: /^uncertainty / },
  { rule: 'slope', decision: 'throttle', reason: /^budget slope / },
  { rule: 'checkpoint', decision: 'checkpoint', reason: /since the last checkpoint/ },
];

const SEVERITY: Record<ContinueDecision, number> = {
  continue: 0,
  checkpoint: 1,
  throttle: 2,
  pause: 3,
  stop: 4,
};

/** The spec, restated plainly: which rules fire for this context. */
function firedRules(ctx: StepContext, config: ContinueGateConfig): Set<Rule> {
  const fired = new Set<Rule>();
  const coherence = Number.isNaN(ctx.coherenceScore) ? 0 : clamp01(ctx.coherenceScore);
  const uncertainty = Number.isNaN(ctx.uncertaintyScore) ? 1 : clamp01(ctx.uncertaintyScore);
  if (coherence < config.minCoherenceForContinue) fired.add('coherence');
  if (Number.isNaN(ctx.stepNumber) || ctx.stepNumber >= config.maxConsecutiveSteps) {
    fired.add('steps');
  }
  for (const key of ['tokens', 'toolCalls', 'timeMs'] as const) {
    const remaining = ctx.budgetRemaining[key];
    if (remaining !== undefined && (Number.isNaN(remaining) || remaining <= 0)) fired.add(key);
  }
  const ratio = ctx.stepNumber > 0 ? ctx.reworkCount / ctx.stepNumber : 0;
  if (Number.isNaN(ratio) || ratio > config.maxReworkRatio) fired.add('rework');
  if (uncertainty > config.maxUncertaintyForContinue) fired.add('uncertainty');
  if (budgetSlope(ctx.stepTokens) > config.maxBudgetSlopePerStep) fired.add('slope');
  const since = ctx.stepNumber - ctx.lastCheckpointStep;
  if (Number.isNaN(since) || since >= config.checkpointIntervalSteps) fired.add('checkpoint');
  return fired;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Values clustered at a threshold, just either side of it, and anywhere in a range. */
function near(threshold: number, min: number, max: number): fc.Arbitrary<number> {
  const tiny = Math.max(Math.abs(threshold) * 1e-9, 1e-12);
  return fc.oneof(
    fc.constantFrom(threshold, threshold - tiny, threshold + tiny, Number.NaN),
    fc.double({ min, max, noNaN: true }),
  );
}

const configArb: fc.Arbitrary<ContinueGateConfig> = fc
  .record(
    {
      maxConsecutiveSteps: fc.integer({ min: 0, max: 150 }),
      checkpointIntervalSteps: fc.integer({ min: 0, max: 40 }),
      minCoherenceForContinue: fc.double({ min: 0, max: 1, noNaN: true }),
      maxUncertaintyForContinue: fc.double({ min: 0, max: 1, noNaN: true }),
      maxReworkRatio: fc.double({ min: 0, max: 1, noNaN: true }),
      maxBudgetSlopePerStep: fc.double({ min: 0, max: 0.2, noNaN: true }),
      cooldownMs: fc.integer({ min: 0, max: 10_000 }),
    },
    { requiredKeys: [] },
  )
  .map((partial) => ({ ...DEFAULT_CONTINUE_CONFIG, ...partial }));

const budgetValue = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.double({ min: -1, max: 1, noNaN: true }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY),
);

const ctxArb: fc.Arbitrary<StepContext> = fc.record({
  stepNumber: fc.oneof(fc.integer({ min: 0, max: 160 }), fc.constant(Number.NaN)),
  totalTokensUsed: fc.nat(),
  totalToolCalls: fc.nat(),
  reworkCount: fc.oneof(fc.integer({ min: 0, max: 80 }), fc.constant(Number.NaN)),
  coherenceScore: near(0.4, -0.2, 1.2),
  uncertaintyScore: near(0.8, -0.2, 1.2),
  budgetRemaining: fc.record(
    { tokens: budgetValue, toolCalls: budgetValue, timeMs: budgetValue },
    { requiredKeys: [] },
  ),
  lastCheckpointStep: fc.integer({ min: 0, max: 160 }),
  stepTokens: fc.option(
    fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 5_000 }),
        fc.double({ min: 0, max: 5_000, noNaN: true }),
        fc.constant(Number.NaN),
      ),
      { maxLength: 14 },
    ),
    { nil: undefined },
  ),
});

describe('evaluateContinue properties', () => {
  it('the first kind of rule that fired, in priority order, decides', () => {
    fc.assert(
      fc.property(ctxArb, configArb, (ctx, config) => {
        const fired = firedRules(ctx, config);
        const expected = RULES.find((r) => fired.has(r.rule))?.decision ?? 'continue';
        expect(evaluateContinue(ctx, config).decision).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('any stop rule means stop; else any pause rule means pause; else throttle; else checkpoint', () => {
    fc.assert(
      fc.property(ctxArb, configArb, (ctx, config) => {
        const fired = firedRules(ctx, config);
        const has = (d: ContinueDecision) =>
          RULES.some((r) => r.decision === d && fired.has(r.rule));
        const { decision } = evaluateContinue(ctx, config);
        if (has('stop')) expect(decision).toBe('stop');
        else if (has('pause')) expect(decision).toBe('pause');
        else if (has('throttle')) expect(decision).toBe('throttle');
        else if (has('checkpoint')) expect(decision).toBe('checkpoint');
        else expect(decision).toBe('continue');
      }),
      { numRuns: 2_000 },
    );
  });

  it('reasons name exactly the rules that fired, once each, in priority order', () => {
    fc.assert(
      fc.property(ctxArb, configArb, (ctx, config) => {
        const fired = firedRules(ctx, config);
        const { reasons, decision } = evaluateContinue(ctx, config);
        const expectedOrder = RULES.filter((r) => fired.has(r.rule));
        expect(reasons).toHaveLength(expectedOrder.length);
        expectedOrder.forEach((r, i) => {
          expect(reasons[i]).toMatch(r.reason);
        });
        expect(reasons.length === 0).toBe(decision === 'continue');
      }),
      { numRuns: 2_000 },
    );
  });

  it('reasons are sentences with numbers in them, never empty', () => {
    fc.assert(
      fc.property(ctxArb, configArb, (ctx, config) => {
        for (const reason of evaluateContinue(ctx, config).reasons) {
          expect(reason.length).toBeGreaterThan(20);
          expect(reason).toMatch(/\d/);
          expect(reason).not.toContain('undefined');
        }
      }),
    );
  });

  it('score levels stay in 0..1 and the slope is finite', () => {
    fc.assert(
      fc.property(ctxArb, configArb, (ctx, config) => {
        const { metrics } = evaluateContinue(ctx, config);
        expect(metrics.coherenceLevel).toBeGreaterThanOrEqual(0);
        expect(metrics.coherenceLevel).toBeLessThanOrEqual(1);
        expect(metrics.uncertaintyLevel).toBeGreaterThanOrEqual(0);
        expect(metrics.uncertaintyLevel).toBeLessThanOrEqual(1);
        expect(Number.isFinite(metrics.budgetSlope)).toBe(true);
        if (!Number.isNaN(ctx.stepNumber)) {
          expect(metrics.stepsUntilCheckpoint).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('worse coherence or uncertainty never makes the decision less severe', () => {
    fc.assert(
      fc.property(
        ctxArb,
        configArb,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (ctx, config, worsen) => {
          const base = SEVERITY[evaluateContinue(ctx, config).decision];
          const lowerCoherence = { ...ctx, coherenceScore: ctx.coherenceScore - worsen };
          const higherUncertainty = { ...ctx, uncertaintyScore: ctx.uncertaintyScore + worsen };
          expect(
            SEVERITY[evaluateContinue(lowerCoherence, config).decision],
          ).toBeGreaterThanOrEqual(base);
          expect(
            SEVERITY[evaluateContinue(higherUncertainty, config).decision],
          ).toBeGreaterThanOrEqual(base);
        },
      ),
    );
  });
});
