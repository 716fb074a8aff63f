import {
  type ContinueDecision,
  type ContinueEvaluation,
  type ContinueGateConfig,
  resolveContinueConfig,
  type StepContext,
} from './continue-gate-config.js';
import { budgetSlope } from './slope.js';

type Fired = { decision: Exclude<ContinueDecision, 'continue'>; reason: string };

const BUDGET_DIMENSIONS = [
  { key: 'tokens', label: 'token budget', unit: '' },
  { key: 'toolCalls', label: 'tool-call budget', unit: '' },
  { key: 'timeMs', label: 'time budget', unit: ' ms' },
] as const;

/**
 * Decides whether an agent should take its next step. Rules are checked in priority order
 * (stop, pause, throttle, checkpoint) and the first kind that fired wins, but `reasons` names
 * every rule that fired so a person reviewing a pause also sees the checkpoint that was due.
 *
 * Every rule is written as "not inside the safe range" rather than "outside it", so a NaN
 * measurement fails safe: it cannot be shown to be fine, so its rule fires. Scores are clamped
 * to 0..1 first; a NaN coherence counts as 0 and a NaN uncertainty as 1, the worst values,
 * because a missing signal is no evidence that the agent is on track.
 *
 * Throws {@link InvalidContinueConfigError} for a config number that is negative or not finite.
 */
export function evaluateContinue(
  ctx: StepContext,
  config?: Partial<ContinueGateConfig>,
): ContinueEvaluation {
  return evaluateResolved(ctx, resolveContinueConfig(config));
}

/** `evaluateContinue` with a config already resolved and checked (the evaluator's, every step). */
export function evaluateResolved(
  ctx: StepContext,
  c: Readonly<ContinueGateConfig>,
): ContinueEvaluation {
  const coherenceLevel = scoreLevel(ctx.coherenceScore, 0);
  const uncertaintyLevel = scoreLevel(ctx.uncertaintyScore, 1);
  const reworkRatio = ctx.stepNumber > 0 ? ctx.reworkCount / ctx.stepNumber : 0;
  const slope = budgetSlope(ctx.stepTokens);
  const sinceCheckpoint = ctx.stepNumber - ctx.lastCheckpointStep;
  const fired: Fired[] = [];

  if (!(coherenceLevel >= c.minCoherenceForContinue)) {
    fired.push({
      decision: 'stop',
      reason: `coherence ${scoreText(ctx.coherenceScore, coherenceLevel, c.minCoherenceForContinue)} is below the minimum ${fmt(c.minCoherenceForContinue)}`,
    });
  }
  if (!(ctx.stepNumber < c.maxConsecutiveSteps)) {
    fired.push({
      decision: 'stop',
      reason: Number.isNaN(ctx.stepNumber)
        ? `step number is not a number, so it cannot be shown to be under the limit of ${fmt(c.maxConsecutiveSteps)} consecutive steps`
        : `step ${fmt(ctx.stepNumber)} has reached the limit of ${fmt(c.maxConsecutiveSteps)} consecutive steps without a person resuming the run`,
    });
  }
  for (const { key, label, unit } of BUDGET_DIMENSIONS) {
    const remaining = ctx.budgetRemaining[key];
    // null counts as "not given" too: JSON turns an unlimited (Infinity) budget into null.
    if (remaining === undefined || remaining === null || remaining > 0) continue;
    fired.push({
      decision: 'stop',
      reason: Number.isNaN(remaining)
        ? `${label} remaining is not a number, so it cannot be shown to be above 0 and is treated as exhausted`
        : `${label} is exhausted: ${fmt(remaining)}${unit} remaining, which is not above 0`,
    });
  }

  if (!(reworkRatio <= c.maxReworkRatio)) {
    fired.push({
      decision: 'pause',
      reason: Number.isNaN(reworkRatio)
        ? `rework ratio is not a number (rework count ${ctx.reworkCount} over ${fmt(ctx.stepNumber)} steps), so it cannot be shown to be within the maximum ${fmt(c.maxReworkRatio)}`
        : `rework ratio ${fmt(reworkRatio, c.maxReworkRatio)} (${fmt(ctx.reworkCount)} of ${fmt(ctx.stepNumber)} steps) is above the maximum ${fmt(c.maxReworkRatio)}`,
    });
  }
  if (uncertaintyLevel > c.maxUncertaintyForContinue) {
    fired.push({
      decision: 'pause',
      reason: `uncertainty ${scoreText(ctx.uncertaintyScore, uncertaintyLevel, c.maxUncertaintyForContinue)} is above the maximum ${fmt(c.maxUncertaintyForContinue)}`,
    });
  }

  if (slope > c.maxBudgetSlopePerStep) {
    fired.push({
      decision: 'throttle',
      reason: `budget slope ${fmt(slope, c.maxBudgetSlopePerStep)} per step (per-step token spend growing ${fmt(slope * 100)}% per step) is above the maximum ${fmt(c.maxBudgetSlopePerStep)}`,
    });
  }

  if (!(sinceCheckpoint < c.checkpointIntervalSteps)) {
    fired.push({
      decision: 'checkpoint',
      reason: Number.isNaN(sinceCheckpoint)
        ? `steps since the last checkpoint are not a number, so a checkpoint is treated as due (interval ${fmt(c.checkpointIntervalSteps)})`
        : `${fmt(sinceCheckpoint)} step${sinceCheckpoint === 1 ? '' : 's'} since the last checkpoint (at step ${fmt(ctx.lastCheckpointStep)}) reach the interval of ${fmt(c.checkpointIntervalSteps)}`,
    });
  }

  return {
    // Rules were pushed in priority order, so the first one fired is the strongest.
    decision: fired[0]?.decision ?? 'continue',
    reasons: fired.map((f) => f.reason),
    metrics: {
      budgetSlope: slope,
      reworkRatio,
      coherenceLevel,
      uncertaintyLevel,
      stepsUntilCheckpoint: Math.max(0, c.checkpointIntervalSteps - sinceCheckpoint),
    },
  };
}

/** Clamps a 0..1 score; NaN becomes `worst`, the value that makes its rule fire. */
function scoreLevel(score: number, worst: 0 | 1): number {
  if (Number.isNaN(score)) return worst;
  return Math.min(1, Math.max(0, score));
}

function scoreText(score: number, level: number, threshold: number): string {
  const value = fmt(score, threshold);
  return score === level ? value : `${value} (treated as ${fmt(level, threshold)})`;
}

/**
 * Short, readable numbers. A value that crossed its threshold must never print as the threshold
 * itself ("0.30000001 is above the maximum 0.3"), so rounding is dropped when it would collide.
 */
function fmt(value: number, threshold?: number): string {
  if (Number.isInteger(value) || !Number.isFinite(value)) return String(value);
  const short = String(Number(value.toPrecision(4)));
  if (threshold !== undefined && value !== threshold && short === fmt(threshold)) {
    return String(value);
  }
  return short;
}
