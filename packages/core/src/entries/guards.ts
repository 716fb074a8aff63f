// @agate/core/guards: writing a guard family (docs/guards.md#families), and the built-in
// guards' records and decisions as plain functions. The built-in families build on nothing
// else of the runtime (guard-seam/public-api.test.ts).

// Human approval of single tool calls, and their ledger (`state.guards.approvals.ledger`)
export type {
  LedgerEntry,
  LedgerEntryFields,
  LedgerKind,
  SignedAs,
  ToolLedgerEntry,
  ToolLedgerKind,
} from '../approvals/ledger-types.js';
// Sub-agents
export type { SubAgentProgress } from '../approvals/sub-agent-path.js';
export {
  type CheckOutcome,
  type CheckReading,
  readCheckOutcome,
} from '../checks/outcome/check-outcome.js';
export {
  type ClassifyOptions,
  classifyShellCommand,
  type ShellOp,
  type ShellPart,
} from '../checks/shell-classifier/classify-shell-command.js';
export { type CallResult, verificationRan } from '../checks/shell-classifier/ran.js';
// Phase gates
export {
  isToolCategory,
  TOOL_CATEGORIES,
  type ToolCategoryProp,
} from '../checks/tool-category.js';
export type { ToolGuardProps } from '../components/tool.js';
// The compiled context a family renders into and reads
export type { BudgetHolding } from '../context-budget/context-budget-errors.js';
// Checkpoints
export {
  type CheckpointCause,
  type CheckpointLedgerEntry,
  type CheckpointLedgerKind,
  type CheckpointRecord,
  type CheckpointStatus,
  type CheckpointsState,
  type CheckpointTrigger,
  DEFAULT_CHECKPOINT_BUDGET,
  type FileBaseline,
  SUBMIT_CHECKPOINT_TOOL,
} from '../families/checkpoints/index.js';
export {
  CONTINUE_GATE_KEY,
  type ContinueDeclaration,
  type ContinueSignals,
  type ReworkHistory,
} from '../families/continue-gate/continue-gate-props.js';
// The ContinueGate's decision
export {
  type ContinueDecision,
  type ContinueEvaluation,
  type ContinueGateConfig,
  ContinueGateEvaluator,
  type ContinueGateStats,
  type ContinueHistoryEntry,
  DEFAULT_CONTINUE_CONFIG,
  evaluateContinue,
  type StepContext,
} from '../families/continue-gate/index.js';
export type { ProgressState } from '../families/continue-gate/progress.js';
// What the hooks of a guard made with defineGuard receive and answer (docs/guards.md)
export type {
  GuardContext,
  GuardEnd,
  GuardRefusal,
  GuardRenderContext,
  GuardResultReplacement,
  GuardTickEndContext,
  GuardToolCall,
  GuardToolCallContext,
  GuardToolResult,
  GuardToolResultContext,
} from '../families/defined-guards/guard-definition.js';
// Evidence receipts and todos
export {
  COMPLETE_STEP_TOOL,
  type CommandMatch,
  checkStepEvidence,
  checkTodoWrite,
  createLedger,
  type EvidenceCheck,
  type EvidenceSpec,
  type Ledger,
  matchStep,
  type PathEvidenceKind,
  type PathsMatch,
  type Receipt,
  type ReceiptEvidence,
  type ReceiptInput,
  type SignedStep,
  type SignOff,
  type StepEvidenceInput,
  type StepMatch,
  TODO_WRITE_TOOL,
  type TodoEvidence,
  type TodoInput,
  type TodoItem,
  type TodoStatus,
  type TodosState,
  type TodoWriteCheck,
} from '../families/evidence/index.js';
// Gates and knobs
export { decideExit, type ExitDecision } from '../families/gates-and-knobs/decide-exit.js';
export type {
  GateClearer,
  GateDeclaration,
  GateHistory,
  GateInfo,
  GateRecord,
  GatesState,
  KnobDeclaration,
} from '../families/gates-and-knobs/gate-types.js';
export type { KnobInfo } from '../families/gates-and-knobs/knob-types.js';
export { FINAL_ANSWER_TOOL } from '../families/output/output-guard.js';
export { evaluatePhaseGates } from '../families/phase-gates/evaluate-phase-gates.js';
export type { CheckKind } from '../families/phase-gates/phase-ledger-state.js';
export { isSmallModel, phasePrompt } from '../families/phase-gates/phase-prompt.js';
export type { PhaseSessionState } from '../families/phase-gates/phase-session-state.js';
export type {
  PhaseEvidence,
  PhaseGateOptions,
  PhaseName,
  PhaseStatus,
  PhaseStep,
  PhaseToolCategories,
  PhaseWarning,
  PhaseWarningKind,
  VerificationLevel,
} from '../families/phase-gates/phase-types.js';
export {
  type ReplayCheck,
  type ReplayOptions,
  type ReplayResult,
  type ReplayStep,
  type ReplayVerdict,
  replayPhaseGates,
  UnmappedToolsError,
} from '../families/phase-gates/replay-phase-gates.js';
export type { VerificationLevelMet } from '../families/phase-gates/verification-levels.js';
export type { SubAgentRun } from '../families/sub-agents/sub-agent-types.js';
export {
  APPROVALS_FAMILY,
  type ApprovalsState,
  hasToolApproval,
  type PendingToolApproval,
  type ToolApprovalRecord,
  type ToolApprovalState,
} from '../families/tool-approvals/index.js';
// Session state, and the slices families keep in it
export type { JsonObject, JsonPrimitive } from '../ground/json.js';
export { isThenable, type MaybePromise } from '../ground/thenable.js';
export { errorMessage } from '../ground/thrown.js';
export { SET_KNOB_TOOL } from '../guard-seam/built-in-tool-names.js';
// The guard seam: what every guard family is made of
export {
  DEFAULT_MAX_BLOCKS,
  MAX_GUARD_REFUSAL_CHARS,
  notAcceptedText,
  plainText,
  refusalCount,
} from '../guard-seam/exit-refusal-text.js';
export type {
  BeforeModelVerdict,
  ChildSession,
  ExitVerdict,
  Guard as GuardFamily,
  GuardContribution,
  GuardFactory as GuardFamilyFactory,
  GuardHost,
  GuardTick,
  ReleasedCall,
  RunStartInfo,
  TickEndInfo,
  ToolCallOutcome,
  ToolCallReplacement,
  ToolCallVerdict,
} from '../guard-seam/guard-family.js';
export { FAMILY_SLICES, withInitialState } from '../guard-seam/initial-state.js';
export type { ContextBudgetReport, DroppedCounts } from '../renderer/budget-report.js';
export type { CompiledTree } from '../renderer/compile.js';
export {
  type CompiledContext,
  type CompiledTool,
  type ContextReports,
  type EphemeralBlock,
  isCompiledContext,
} from '../renderer/compiled-context.js';
export { defineToolProp, functionPropCheck, type ToolPropCheck } from '../renderer/tool-props.js';
export { untilAborted } from '../runtime/abort.js';
export type {
  Declaration,
  DeclarationKinds,
  DeclarationRegistry,
  GuardDeclaration,
} from '../runtime/declarations.js';
export type { EventPath, GuardEvent, RuntimeEvent } from '../runtime/events.js';
export { ToolSuspended } from '../runtime/inflight.js';
export type { TickOutcome } from '../runtime/session.js';
export {
  type SessionHandles,
  useSessionContext,
  useSessionHandles,
} from '../runtime/session-context.js';
export type { GuardRunReport, RunReport } from '../runtime/session-options.js';
export { validateInput } from '../runtime/tool-execution.js';
export { sameItems } from '../runtime/tool-index.js';
export type { ToolOutputTruncation } from '../runtime/tool-limits.js';
// A component registers its declaration for its family with it (every built-in family does).
export { useDeclaration } from '../runtime/use-declaration.js';
// Workspace fingerprints (checkpoint file triggers)
// The <Shell> sandbox's runner (a family that runs a check itself: <CommandGate>)
export { commandEnvironment, resolvePolicy } from '../shell/policy.js';
export { type RunOptions as ShellRunOptions, runShellCommand } from '../shell/run-command.js';
export { DEFAULT_SHELL_OUTPUT_CHARS, DEFAULT_SHELL_TIMEOUT_MS } from '../shell/shell.js';
export { countSchema, type FamilySlice, nonNegativeSchema } from '../state/family-slice.js';
export { LastOf } from '../state/last-of.js';
export type {
  ChangedBy,
  GateStatus,
  GuardSlices,
  GuardStates,
  SeedState,
  UsageTotals,
} from '../state/session-state.js';
export type { TickToolCall, TickToolResult } from '../state/tick-result.js';
export { callSignature, canonicalJson, deepFreeze } from '../state/update.js';
export {
  changedFiles,
  type FileMark,
  type Fingerprint,
  fingerprintWorkspace,
  hashFile,
  markOf,
} from '../workspace/fingerprint.js';
