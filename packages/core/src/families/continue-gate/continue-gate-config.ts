import { AgateError, nameErrorClass } from '../../ground/agate-error.js';

/** What the ContinueGate measures before each step. */
export interface StepContext {
  /** Steps since the run started or was last resumed by a person. */
  stepNumber: number;
  /** Tokens used so far. */
  totalTokensUsed: number;
  /** Tool calls so far. */
  totalToolCalls: number;
  /** Steps that redo earlier work. */
  reworkCount: number;
  /** 0..1; how well the agent is holding to its goal. */
  coherenceScore: number;
  /** 0..1; how unsure the agent is about its next step. */
  uncertaintyScore: number;
  /** Only the dimensions given are checked; an absent one is unlimited. */
  budgetRemaining: { tokens?: number; toolCalls?: number; timeMs?: number };
  /** The step of the latest checkpoint (0 before any). */
  lastCheckpointStep: number;
  /** Tokens used by each step, oldest first. */
  stepTokens?: number[];
}

/** The thresholds `<ContinueGate>` judges each step against (every one has a default). */
export interface ContinueGateConfig {
  /** Stop once this many steps have run without a person resuming the run. */
  maxConsecutiveSteps: number;
  /** Ask for a checkpoint once this many steps have passed since the last one. */
  checkpointIntervalSteps: number;
  /** Stop when coherence falls below this. */
  minCoherenceForContinue: number;
  /** Pause for review when uncertainty rises above this. */
  maxUncertaintyForContinue: number;
  /** Pause for review when more than this fraction of steps are rework. */
  maxReworkRatio: number;
  /** Throttle when per-step token spend grows by more than this fraction per step. */
  maxBudgetSlopePerStep: number;
  /** How long a caller should wait before the next step after a `throttle` decision. */
  cooldownMs: number;
}

/** What `<ContinueGate>` decided after a step, from `stop` (most severe) to `continue`. */
export type ContinueDecision = 'stop' | 'pause' | 'throttle' | 'checkpoint' | 'continue';

/** One evaluation of `<ContinueGate>`: its decision, why, and the metrics it was made from. */
export interface ContinueEvaluation {
  /** What the run should do next. */
  decision: ContinueDecision;
  /** One sentence per rule that fired, in priority order; empty when the decision is `continue`. */
  reasons: string[];
  /** The numbers the decision was made from. */
  metrics: {
    budgetSlope: number;
    reworkRatio: number;
    coherenceLevel: number;
    uncertaintyLevel: number;
    stepsUntilCheckpoint: number;
  };
}

export const DEFAULT_CONTINUE_CONFIG: Readonly<ContinueGateConfig> = Object.freeze({
  maxConsecutiveSteps: 100,
  checkpointIntervalSteps: 25,
  minCoherenceForContinue: 0.4,
  maxUncertaintyForContinue: 0.8,
  maxReworkRatio: 0.3,
  maxBudgetSlopePerStep: 0.02,
  cooldownMs: 5000,
});

/** A ContinueGate setting that is not a number the gate can compare against. */
export class InvalidContinueConfigError extends AgateError {
  static {
    nameErrorClass(InvalidContinueConfigError, 'InvalidContinueConfigError');
  }
  /** The class's name as a literal, so a minified bundle still reports it. */
  override name = 'InvalidContinueConfigError';
  /** The setting that is out of range. */
  readonly field: string;
  /** The value given for it. */
  readonly value: unknown;

  constructor(field: string, value: unknown, expected = 'a finite number >= 0') {
    const fallback = (DEFAULT_CONTINUE_CONFIG as Readonly<Record<string, number>>)[field];
    super(
      `ContinueGate "${field}" must be ${expected}, got ${describe(value)}.` +
        (fallback === undefined ? '' : ` Leave it out to use the default (${fallback}).`),
    );
    this.field = field;
    this.value = value;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/**
 * Merges a partial config over the defaults and rejects bad numbers up front: a NaN threshold
 * would silently disable its rule (every comparison with NaN is false), which is worse than failing.
 * An explicit `undefined` means "use the default", as if the key were absent.
 */
export function resolveContinueConfig(config?: Partial<ContinueGateConfig>): ContinueGateConfig {
  const resolved: ContinueGateConfig = { ...DEFAULT_CONTINUE_CONFIG };
  if (config === undefined) return resolved;
  for (const field of Object.keys(DEFAULT_CONTINUE_CONFIG) as Array<keyof ContinueGateConfig>) {
    const value: unknown = config[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InvalidContinueConfigError(field, value);
    }
    resolved[field] = value;
  }
  return resolved;
}
