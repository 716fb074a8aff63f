export {
  type ContinueDecision,
  type ContinueEvaluation,
  type ContinueGateConfig,
  DEFAULT_CONTINUE_CONFIG,
  InvalidContinueConfigError,
  resolveContinueConfig,
  type StepContext,
} from './continue-gate-config.js';
export {
  ContinueGateEvaluator,
  type ContinueGateStats,
  type ContinueHistoryEntry,
  DEFAULT_MAX_HISTORY,
} from './continue-gate-evaluator.js';
export { evaluateContinue } from './evaluate-continue.js';
export { budgetSlope, SLOPE_WINDOW } from './slope.js';
