import type { TickResult } from '../../runtime/tick-result.js';
import type { SessionState } from '../../state/session-state.js';
import type { ContinueEvaluation, ContinueGateConfig, StepContext } from './types.js';

/** What the pluggable signal functions see before each model call. */
export interface ContinueSignals {
  state: SessionState;
  /** Recent finished ticks, oldest first. */
  recentTicks: readonly TickResult[];
}

/** What a rework detector sees: the step just finished and the calls made before it. */
export interface ReworkHistory {
  /** Canonical signatures (`name:{sorted json}`) of earlier calls in the run, oldest first (capped). */
  previousCalls: readonly string[];
  /** True when a call identical (name + canonical arguments) to this one was made earlier. */
  isRepeat(call: { toolName: string; input: unknown }): boolean;
}

export type ContinueGateProps = Partial<ContinueGateConfig> & {
  /** Limits over the session's whole life (they carry over a resume). */
  budget?: { tokens?: number; toolCalls?: number; timeMs?: number };
  /** 0..1, default 1. Below `minCoherenceForContinue` the run stops. */
  coherence?: (signals: ContinueSignals) => number;
  /** 0..1, default 0. Above `maxUncertaintyForContinue` the run pauses. */
  uncertainty?: (signals: ContinueSignals) => number;
  /** Does this step redo earlier work? Default: it repeats an earlier call exactly. */
  isRework?: (tick: TickResult, history: ReworkHistory) => boolean;
  /** Called with every evaluation (after the runtime acted on it). */
  onDecision?: (evaluation: ContinueEvaluation, step: StepContext) => void;
};
