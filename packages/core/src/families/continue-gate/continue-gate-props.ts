import type { SessionState } from '../../state/session-state.js';
import type { TickResult } from '../../state/tick-result.js';
import {
  type ContinueEvaluation,
  type ContinueGateConfig,
  InvalidContinueConfigError,
  resolveContinueConfig,
  type StepContext,
} from './continue-gate-config.js';

/** What the pluggable signal functions see before each model call. */
export interface ContinueSignals {
  /** The session's state before the model call. */
  state: SessionState;
  /** Recent finished ticks, oldest first. */
  recentTicks: readonly TickResult[];
}

/** What a rework detector sees: the step just finished and the calls made before it. */
export interface ReworkHistory {
  /** Canonical signatures (`name:{sorted json}`) of earlier calls in the run, oldest first (capped). */
  previousCalls: readonly string[];
  /**
   * True when a call identical (name + canonical arguments) to this one was made earlier: in an
   * earlier tick, or before it in the same tick (pass the objects from `tick.toolCalls` for that).
   * `set_knob` calls are never repeats.
   */
  isRepeat(call: { toolName: string; input: unknown }): boolean;
}

/**
 * Props of `<ContinueGate>`: its thresholds, budgets over the session's life, and the signals it
 * scores steps with.
 */
export type ContinueGateProps = Partial<ContinueGateConfig> & {
  /**
   * Limits over the session's whole life (they carry over a resume, in this process or another).
   * Time is wall time spent inside ticks, so time spent paused, waiting for a person, is free.
   */
  budget?: { tokens?: number; toolCalls?: number; timeMs?: number };
  /** 0..1, default 1. Below `minCoherenceForContinue` the run stops. */
  coherence?: (signals: ContinueSignals) => number;
  /** 0..1, default 0. Above `maxUncertaintyForContinue` the run pauses. */
  uncertainty?: (signals: ContinueSignals) => number;
  /** Does this step redo earlier work? Default: it repeats an earlier call exactly. */
  isRework?: (tick: TickResult, history: ReworkHistory) => boolean;
  /**
   * Called with every evaluation, after the runtime acted on it (also when that failed or
   * was aborted).
   */
  onDecision?: (evaluation: ContinueEvaluation, step: StepContext) => void;
};

const BUDGET_KEYS = ['tokens', 'toolCalls', 'timeMs'] as const;

/**
 * Checks everything the gate compares against: the config numbers and the budget. A NaN or
 * negative budget would stop the run on its first step with a puzzling reason; fail where it is
 * written instead. `Infinity` is a valid budget (no limit).
 */
export function checkContinueProps(props: ContinueGateProps): ContinueGateConfig {
  const config = resolveContinueConfig(props);
  const { budget } = props;
  if (budget === undefined) return config;
  if (typeof budget !== 'object' || budget === null) {
    throw new InvalidContinueConfigError(
      'budget',
      budget,
      'an object like { tokens, toolCalls, timeMs }',
    );
  }
  for (const key of BUDGET_KEYS) {
    const value: unknown = budget[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new InvalidContinueConfigError(
        `budget.${key}`,
        value,
        'a number >= 0 (Infinity, or leaving it out, means no limit)',
      );
    }
  }
  return config;
}

/** Registry key of the ContinueGate; not a valid knob name, so it cannot collide with one. */
export const CONTINUE_GATE_KEY = '#continue-gate';

/** `<ContinueGate>` registers this while it is mounted (its props, read before each model call). */
export interface ContinueDeclaration {
  kind: 'continue';
  name: typeof CONTINUE_GATE_KEY;
  config: ContinueGateProps;
}
