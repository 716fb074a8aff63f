import { AgateError } from '../../ground/agate-error.js';
import { errorMessage } from '../../ground/thrown.js';
import type { SessionState } from '../../state/session-state.js';
import type { StepContext } from './continue-gate-config.js';
import type { ContinueGateProps, ContinueSignals } from './continue-gate-props.js';

/** Builds the StepContext from session state: usage, tool calls, elapsed time, budgets. */
export function buildStepContext(
  state: SessionState,
  props: ContinueGateProps,
  signals: ContinueSignals,
): StepContext {
  const { budget } = props;
  const budgetRemaining: StepContext['budgetRemaining'] = {};
  if (budget?.tokens !== undefined)
    budgetRemaining.tokens = budget.tokens - state.usage.totalTokens;
  if (budget?.toolCalls !== undefined)
    budgetRemaining.toolCalls = budget.toolCalls - state.toolCalls;
  if (budget?.timeMs !== undefined)
    budgetRemaining.timeMs = budget.timeMs - state.guards.continue.elapsedMs;
  return {
    stepNumber: state.guards.continue.stepNumber,
    totalTokensUsed: state.usage.totalTokens,
    totalToolCalls: state.toolCalls,
    reworkCount: state.guards.continue.reworkCount,
    coherenceScore: props.coherence ? score('coherence', props.coherence, signals) : 1,
    uncertaintyScore: props.uncertainty ? score('uncertainty', props.uncertainty, signals) : 0,
    budgetRemaining,
    lastCheckpointStep: state.guards.continue.lastCheckpointStep,
    stepTokens: [...state.guards.continue.stepTokens],
  };
}

/**
 * Calls a pluggable score function, naming it when it throws (the run ends with `error`, and
 * the message should point at the prop, not at runtime internals). A non-number result is
 * passed on as NaN, which the evaluation treats as the worst score: no evidence of being on track.
 */
function score(
  name: 'coherence' | 'uncertainty',
  fn: (signals: ContinueSignals) => number,
  signals: ContinueSignals,
): number {
  let value: unknown;
  try {
    value = fn(signals);
  } catch (error) {
    throw new AgateError(`The ContinueGate's ${name} function threw: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return typeof value === 'number' ? value : Number.NaN;
}
