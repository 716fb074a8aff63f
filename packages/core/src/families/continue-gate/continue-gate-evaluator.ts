import {
  type ContinueDecision,
  type ContinueEvaluation,
  type ContinueGateConfig,
  InvalidContinueConfigError,
  resolveContinueConfig,
  type StepContext,
} from './continue-gate-config.js';
import { evaluateResolved } from './evaluate-continue.js';

export const DEFAULT_MAX_HISTORY = 10_000;

/** One evaluation in the `ContinueGateEvaluator`'s history. */
export interface ContinueHistoryEntry {
  /** `Date.now()` when the evaluation ran. */
  at: number;
  /** The step it evaluated. */
  stepNumber: number;
  /** What the evaluation decided, and from which metrics. */
  evaluation: ContinueEvaluation;
}

/** Totals over the `ContinueGateEvaluator`'s evaluations, for monitoring. */
export interface ContinueGateStats {
  /** Evaluations since construction or the last `reset()`, including ones dropped from history. */
  evaluations: number;
  /** Evaluations by decision. */
  counts: Record<ContinueDecision, number>;
  /** The latest evaluation's metrics, once there is one. */
  latest?: ContinueEvaluation['metrics'];
  /** Mean budget slope over the retained history (0 when it is empty). */
  meanBudgetSlope: number;
}

/**
 * `evaluateContinue` with a memory: keeps the last `maxHistory` evaluations for monitoring.
 * History is a ring buffer so a long run keeps flat memory and O(1) work per evaluation.
 */
export class ContinueGateEvaluator {
  /** The thresholds it evaluates against, defaults filled in. */
  readonly config: Readonly<ContinueGateConfig>;
  /** Entries the history keeps; older ones are dropped (the stats still count them). */
  readonly maxHistory: number;
  private ring: ContinueHistoryEntry[] = [];
  /** Where the next entry goes once the ring is full (it is also the oldest entry). */
  private next = 0;
  private total = 0;
  private counts = emptyCounts();
  private slopeSum = 0;
  private latest: ContinueEvaluation | undefined;
  /** Oldest-first copy handed out by `history`; rebuilt only after a change. */
  private view: readonly ContinueHistoryEntry[] | undefined;

  constructor(config?: Partial<ContinueGateConfig>, options?: { maxHistory?: number }) {
    // Validate once here so a bad config fails at setup, not on the first step.
    this.config = Object.freeze(resolveContinueConfig(config));
    const maxHistory = options?.maxHistory ?? DEFAULT_MAX_HISTORY;
    if (!Number.isSafeInteger(maxHistory) || maxHistory < 1) {
      throw new InvalidContinueConfigError('maxHistory', maxHistory, 'a whole number >= 1');
    }
    this.maxHistory = maxHistory;
  }

  /** Evaluates one step and records it in the history and the stats. */
  evaluate(ctx: StepContext): ContinueEvaluation {
    // Resolved and checked once, in the constructor.
    const evaluation = evaluateResolved(ctx, this.config);
    const entry: ContinueHistoryEntry = { at: Date.now(), stepNumber: ctx.stepNumber, evaluation };
    if (this.ring.length < this.maxHistory) {
      this.ring.push(entry);
    } else {
      const dropped = this.ring[this.next] as ContinueHistoryEntry;
      this.slopeSum -= dropped.evaluation.metrics.budgetSlope;
      this.ring[this.next] = entry;
      this.next = (this.next + 1) % this.maxHistory;
    }
    this.slopeSum += evaluation.metrics.budgetSlope;
    // Adding and subtracting floats drifts; an exact re-sum once per lap keeps it bounded
    // at O(1) amortized cost.
    if (this.next === 0 && this.ring.length === this.maxHistory) this.resum();
    this.total += 1;
    this.counts[evaluation.decision] += 1;
    this.latest = evaluation;
    this.view = undefined;
    return evaluation;
  }

  /** Retained evaluations, oldest first. */
  get history(): readonly ContinueHistoryEntry[] {
    if (this.view === undefined) {
      this.view = Object.freeze([...this.ring.slice(this.next), ...this.ring.slice(0, this.next)]);
    }
    return this.view;
  }

  /** Totals over the evaluations since construction or the last `reset()`. */
  stats(): ContinueGateStats {
    const size = this.ring.length;
    return {
      evaluations: this.total,
      counts: { ...this.counts },
      ...(this.latest === undefined ? {} : { latest: { ...this.latest.metrics } }),
      meanBudgetSlope: size === 0 ? 0 : this.slopeSum / size,
    };
  }

  /** Forgets the history and the stats. */
  reset(): void {
    this.ring = [];
    this.next = 0;
    this.total = 0;
    this.counts = emptyCounts();
    this.slopeSum = 0;
    this.latest = undefined;
    this.view = undefined;
  }

  private resum(): void {
    let sum = 0;
    for (const entry of this.ring) sum += entry.evaluation.metrics.budgetSlope;
    this.slopeSum = sum;
  }
}

function emptyCounts(): Record<ContinueDecision, number> {
  return { stop: 0, pause: 0, throttle: 0, checkpoint: 0, continue: 0 };
}
