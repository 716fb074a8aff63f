import type { SessionState } from '../../state/session-state.js';
import type { ContinueGateProps, ContinueSignals } from './props.js';
import type { StepContext } from './types.js';

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
    budgetRemaining.timeMs = budget.timeMs - state.progress.elapsedMs;
  return {
    stepNumber: state.progress.stepNumber,
    totalTokensUsed: state.usage.totalTokens,
    totalToolCalls: state.toolCalls,
    reworkCount: state.progress.reworkCount,
    coherenceScore: props.coherence?.(signals) ?? 1,
    uncertaintyScore: props.uncertainty?.(signals) ?? 0,
    budgetRemaining,
    lastCheckpointStep: state.progress.lastCheckpointStep,
    stepTokens: [...state.progress.stepTokens],
  };
}
