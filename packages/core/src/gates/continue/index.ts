export { evaluateContinue } from './evaluate.js';
export {
  ContinueGateEvaluator,
  type ContinueGateStats,
  type ContinueHistoryEntry,
  DEFAULT_MAX_HISTORY,
} from './evaluator.js';
export { budgetSlope, SLOPE_WINDOW } from './slope.js';
export {
  type ContinueDecision,
  type ContinueEvaluation,
  type ContinueGateConfig,
  DEFAULT_CONTINUE_CONFIG,
  InvalidContinueConfigError,
  resolveContinueConfig,
  type StepContext,
} from './types.js';
