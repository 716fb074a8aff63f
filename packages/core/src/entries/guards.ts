// @agate/core/guards: writing a guard family (docs/guards.md#families), and the built-in
// guards' records and decisions as plain functions. The built-in families build on nothing
// else of the runtime (guards/public-api.test.ts).

export type { ToolGuardProps } from '../components/tool.js';
// The compiled context a family renders into and reads
export type { BudgetHolding } from '../context/errors.js';
export type { ContextBudgetReport, DroppedCounts } from '../context/report.js';
// Human approval of single tool calls
export {
  APPROVALS_FAMILY,
  type ApprovalsState,
  hasToolApproval,
  type PendingToolApproval,
  type ToolApprovalRecord,
  type ToolApprovalState,
} from '../gates/approvals/index.js';
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
} from '../gates/checkpoint/index.js';
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
} from '../gates/continue/index.js';
export type { ProgressState } from '../gates/continue/progress.js';
export {
  CONTINUE_GATE_KEY,
  type ContinueDeclaration,
  type ContinueSignals,
  type ReworkHistory,
} from '../gates/continue/props.js';
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
} from '../gates/evidence/index.js';
// Gates and knobs
export { decideExit, type ExitDecision } from '../gates/exit.js';
export type { KnobInfo } from '../gates/knob-types.js';
export { FINAL_ANSWER_TOOL } from '../gates/output/guard.js';
// Phase gates
export {
  isToolCategory,
  TOOL_CATEGORIES,
  type ToolCategoryProp,
} from '../gates/phase/category.js';
export { evaluatePhaseGates } from '../gates/phase/evaluate.js';
export type { CheckKind } from '../gates/phase/ledger-state.js';
export type { VerificationLevelMet } from '../gates/phase/levels.js';
export {
  type CheckOutcome,
  type CheckReading,
  readCheckOutcome,
} from '../gates/phase/outcome/check-outcome.js';
export { isSmallModel, phasePrompt } from '../gates/phase/prompt.js';
export {
  type ReplayCheck,
  type ReplayOptions,
  type ReplayResult,
  type ReplayStep,
  type ReplayVerdict,
  replayPhaseGates,
  UnmappedToolsError,
} from '../gates/phase/replay.js';
export type { PhaseSessionState } from '../gates/phase/session-state.js';
export {
  type ClassifyOptions,
  classifyShellCommand,
  type ShellOp,
  type ShellPart,
} from '../gates/phase/shell/classify.js';
export { type CallResult, verificationRan } from '../gates/phase/shell/ran.js';
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
} from '../gates/phase/types.js';
export { SET_KNOB_TOOL } from '../gates/set-knob-tool.js';
export {
  DEFAULT_MAX_BLOCKS,
  type GateClearer,
  type GateDeclaration,
  type GateHistory,
  type GateInfo,
  type GateRecord,
  type GatesState,
  type KnobDeclaration,
} from '../gates/types.js';
// The guard seam: what every guard family is made of
export { isThenable, type MaybePromise } from '../guards/guard-set.js';
export { FAMILY_SLICES, withInitialState } from '../guards/initial-state.js';
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
} from '../guards/types.js';
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
export { errorMessage } from '../runtime/errors.js';
export type { EventPath, GuardEvent, RuntimeEvent } from '../runtime/events.js';
export { ToolSuspended } from '../runtime/inflight.js';
export type { TickOutcome } from '../runtime/session.js';
export {
  type SessionHandles,
  useSessionContext,
  useSessionHandles,
} from '../runtime/session-context.js';
export type { GuardRunReport, RunReport } from '../runtime/session-options.js';
export type { TickToolCall, TickToolResult } from '../runtime/tick-result.js';
export { validateInput } from '../runtime/tool-execution.js';
export { sameItems } from '../runtime/tool-index.js';
export type { ToolOutputTruncation } from '../runtime/tool-limits.js';
// Session state, and the slices families keep in it
export type { JsonObject, JsonPrimitive } from '../state/json.js';
export { LastOf } from '../state/last-of.js';
export type {
  ChangedBy,
  GateStatus,
  GuardSlices,
  GuardStates,
  SeedState,
  UsageTotals,
} from '../state/session-state.js';
export { countSchema, type FamilySlice, nonNegativeSchema } from '../state/slice.js';
export { callSignature, canonicalJson, deepFreeze } from '../state/update.js';
// Sub-agents
export type { SubAgentProgress } from '../subagents/path.js';
export type { SubAgentRun } from '../subagents/types.js';
// Workspace fingerprints (checkpoint file triggers)
export {
  changedFiles,
  type Fingerprint,
  fingerprintWorkspace,
  hashFile,
  markOf,
} from '../workspace/fingerprint.js';
