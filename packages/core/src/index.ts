// Components
export {
  Assistant,
  Message,
  type MessageProps,
  type MessageRole,
  User,
} from './components/message.js';
export { Ephemeral, Section, System } from './components/text.js';
export { Timeline, type TimelineProps } from './components/timeline.js';
export {
  Tool,
  type ToolGuardProps,
  type ToolProps,
} from './components/tool.js';
export {
  type ToolOptions,
  ToolResultError,
  Tools,
  type ToolsProps,
} from './components/tools.js';
export {
  type ContextBudgetOptions,
  estimateTokens,
  type Tokenizer,
} from './context-budget/budget-options.js';
// Context budgets
export {
  type BudgetHolding,
  ContextBudgetError,
  InvalidContextBudgetError,
} from './context-budget/context-budget-errors.js';
export type { ContextBudgetReport, DroppedCounts } from './context-budget/report.js';
// Checkpoints
export {
  APPROVAL_KEY_ENV,
  APPROVAL_KEY_FILE_ENV,
  APPROVAL_PUBLIC_KEY_ENV,
  ApprovalKeyError,
  type ApproveInput,
  approveCheckpoint,
  Checkpoint,
  type CheckpointCause,
  CheckpointDecisionError,
  CheckpointDeclarationError,
  type CheckpointLedgerEntry,
  type CheckpointLedgerKind,
  CheckpointNotPendingError,
  type CheckpointProps,
  type CheckpointRecord,
  type CheckpointStatus,
  type CheckpointsState,
  type CheckpointTrigger,
  DEFAULT_CHECKPOINT_BUDGET,
  type FileBaseline,
  generateApprovalKeyPair,
  MissingApprovalKeyError,
  publicKeyId,
  type RejectInput,
  rejectCheckpoint,
  SUBMIT_CHECKPOINT_TOOL,
  UnknownCheckpointError,
  UnknownSessionError,
} from './families/checkpoints/index.js';
// Gates and knobs
export { ContinueGate } from './families/continue-gate/continue-gate.js';
export {
  CONTINUE_GATE_KEY,
  type ContinueDeclaration,
  type ContinueGateProps,
  type ContinueSignals,
  type ReworkHistory,
} from './families/continue-gate/continue-gate-props.js';
export {
  budgetSlope,
  type ContinueDecision,
  type ContinueEvaluation,
  type ContinueGateConfig,
  ContinueGateEvaluator,
  type ContinueGateStats,
  type ContinueHistoryEntry,
  DEFAULT_CONTINUE_CONFIG,
  evaluateContinue,
  InvalidContinueConfigError,
  type StepContext,
} from './families/continue-gate/index.js';
export type { ProgressState } from './families/continue-gate/progress.js';
// Guards anyone can write: defineGuard (docs/guards.md)
export { defineGuard } from './families/defined-guards/define-guard.js';
export {
  GuardDefinitionError,
  GuardHookError,
  GuardStateError,
} from './families/defined-guards/defined-guard-errors.js';
export type {
  GuardComponent,
  GuardContext,
  GuardDefinition,
  GuardEnd,
  GuardRefusal,
  GuardRenderContext,
  GuardResultReplacement,
  GuardTickEndContext,
  GuardToolCall,
  GuardToolCallContext,
  GuardToolResult,
  GuardToolResultContext,
} from './families/defined-guards/guard-definition.js';
export {
  blockingItems,
  COMPLETE_STEP_TOOL,
  type CommandMatch,
  checkStepEvidence,
  checkTodoWrite,
  createLedger,
  describeEvidence,
  type EvidenceCheck,
  type EvidenceSpec,
  incompleteItems,
  type Ledger,
  matchStep,
  normalizeCommand,
  normalizePath,
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
  Todos,
  type TodosProps,
  type TodosState,
  type TodoWriteCheck,
  useTodos,
} from './families/evidence/index.js';
export { decideExit, type ExitDecision } from './families/gates-and-knobs/decide-exit.js';
export { Gate, type GateProps } from './families/gates-and-knobs/gate.js';
export { gate } from './families/gates-and-knobs/gate-descriptor.js';
export { GatePredicateError } from './families/gates-and-knobs/gate-transitions.js';
export {
  DEFAULT_MAX_BLOCKS,
  type GateClearer,
  type GateDeclaration,
  type GateDescriptor,
  type GateHistory,
  type GateInfo,
  type GateRecord,
  type GatesState,
  type KnobDeclaration,
} from './families/gates-and-knobs/gate-types.js';
export { Knob, type KnobProps } from './families/gates-and-knobs/knob.js';
export type { KnobInfo, KnobOptions } from './families/gates-and-knobs/knob-types.js';
export { SET_KNOB_TOOL } from './families/gates-and-knobs/set-knob-tool.js';
export { type GateState, useGate } from './families/gates-and-knobs/use-gate.js';
export { useKnob } from './families/gates-and-knobs/use-knob.js';
export { Output, type OutputProps } from './families/output/output.js';
// Output: a run that ends in a checked object
export { FINAL_ANSWER_TOOL } from './families/output/output-guard.js';
export { evaluatePhaseGates } from './families/phase-gates/evaluate-phase-gates.js';
export {
  type CheckOutcome,
  type CheckReading,
  readCheckOutcome,
} from './families/phase-gates/outcome/check-outcome.js';
export { PhaseGates, usePhaseGates } from './families/phase-gates/phase-gates.js';
export type { PhaseGatesProps } from './families/phase-gates/phase-gates-props.js';
export type { CheckKind } from './families/phase-gates/phase-ledger-state.js';
export { isSmallModel, PhasePrompt, phasePrompt } from './families/phase-gates/phase-prompt.js';
// State
export type { PhaseSessionState } from './families/phase-gates/phase-session-state.js';
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
} from './families/phase-gates/phase-types.js';
export {
  type ReplayCheck,
  type ReplayOptions,
  type ReplayResult,
  type ReplayStep,
  type ReplayVerdict,
  replayPhaseGates,
  UnmappedToolsError,
} from './families/phase-gates/replay-phase-gates.js';
export {
  type ClassifyOptions,
  classifyShellCommand,
  type ShellOp,
  type ShellPart,
} from './families/phase-gates/shell-classifier/classify-shell-command.js';
export { type CallResult, verificationRan } from './families/phase-gates/shell-classifier/ran.js';
export {
  isToolCategory,
  TOOL_CATEGORIES,
  type ToolCategory,
  type ToolCategoryProp,
} from './families/phase-gates/tool-category.js';
export type { VerificationLevelMet } from './families/phase-gates/verification-levels.js';
export { SubAgent } from './families/sub-agents/sub-agent.js';
export { subAgentElement } from './families/sub-agents/sub-agent-element.js';
// Sub-agents: a tool whose call runs a child agent
export { SubAgentError } from './families/sub-agents/sub-agent-errors.js';
export {
  formatPath,
  PATH_SEPARATOR,
  type SubAgentProgress,
} from './families/sub-agents/sub-agent-path.js';
export {
  DEFAULT_SUBAGENT_CONCURRENCY,
  DEFAULT_SUBAGENT_MAX_TICKS,
  type SubAgentProps,
  type SubAgentRun,
} from './families/sub-agents/sub-agent-types.js';
// Human approval of single tool calls (<Tool needsApproval>)
export {
  APPROVALS_FAMILY,
  type ApprovalsState,
  approveToolCall,
  denyToolCall,
  hasToolApproval,
  type NeedsApproval,
  type NeedsApprovalContext,
  type PendingToolApproval,
  ToolApprovalDecisionError,
  type ToolApprovalInput,
  type ToolApprovalRecord,
  type ToolApprovalState,
  ToolCallNotPendingError,
  type ToolDenialInput,
  UnknownToolCallError,
} from './families/tool-approvals/index.js';
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
} from './guard-seam/guard-family.js';
// The guard seam: what every guard family is built from, the built-in ones included (a test,
// guard-seam/public-api.test.ts, fails if a family imports anything of the runtime not exported
// here). Register a family with `SessionOptions.guardFamilies`; see docs/guards.md#families.
export { isThenable, type MaybePromise } from './guard-seam/guard-set.js';
export { FAMILY_SLICES, withInitialState } from './guard-seam/initial-state.js';
export {
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  DEFAULT_MCP_TIMEOUT_MS,
  McpConfigError,
  type McpHttpServerProps,
  McpServer,
  McpServerError,
  type McpServerProps,
  type McpStdioServerProps,
} from './mcp/index.js';
export { noteContinuation } from './persistence/continuations.js';
// Persistence
export {
  assertRestorePoint,
  type CreateSnapshotOptions,
  createFileStore,
  createMemoryStore,
  createSnapshot,
  DEFAULT_SESSIONS_DIR,
  InvalidSessionIdError,
  isSettledJson,
  type ListOptions,
  migrateState,
  parseRestorePointRef,
  parseSnapshot,
  RESTORE_POINTS_DIR,
  type RestorePointSummary,
  restorePointRef,
  type SaveOptions,
  SessionLockError,
  type SessionSnapshot,
  type SessionStore,
  type SessionSummary,
  type SessionUpdate,
  type SettledOrigin,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  SnapshotError,
  StaleSessionError,
  serializeSnapshot,
  settledOrigin,
  type UpdateSessionOptions,
  updateSession,
} from './persistence/index.js';
export { restoreSnapshotState } from './persistence/restore.js';
export { assertValidSessionId, isValidSessionId } from './persistence/snapshot.js';
export type { CompiledTree } from './renderer/compile.js';
// Renderer output
export {
  type CompiledContext,
  type CompiledTool,
  type ContextReports,
  type EphemeralBlock,
  isCompiledContext,
} from './renderer/compiled-context.js';
export { defineToolProp, functionPropCheck, type ToolPropCheck } from './renderer/tool-props.js';
export { untilAborted } from './runtime/abort.js';
export type {
  Declaration,
  DeclarationKinds,
  DeclarationRegistry,
  GuardDeclaration,
} from './runtime/declarations.js';
export type { DurableSteps, ToolStepRecord } from './runtime/durable-steps.js';
export type {
  AgateEvent,
  AgateEventType,
  EventListener,
  EventPath,
  GuardEvent,
  GuardEventMap,
  RuntimeEvent,
  SubscribeOptions,
} from './runtime/events.js';
export { RunError } from './runtime/fault.js';
export type { InflightTick } from './runtime/inflight.js';
export { ToolSuspended } from './runtime/inflight.js';
export type { ModelSettings, ModelTurn } from './runtime/model-call.js';
// MCP servers
export type { SessionResource, SessionResources } from './runtime/resources.js';
export { run } from './runtime/run.js';
export { SessionRunningElsewhereError } from './runtime/run-claim.js';
export type { FaultStep } from './runtime/runtime-errors.js';
// Runtime
export {
  AgateError,
  DuplicateToolError,
  errorMessage,
  GateDeadlockError,
  InvalidElementError,
  KnobDeclarationError,
  ModelCallError,
  RenderError,
  SessionStateError,
} from './runtime/runtime-errors.js';
export {
  createSession,
  type RunOptions,
  type RunResult,
  Session,
  type SessionOptions,
  type TickOutcome,
} from './runtime/session.js';
export {
  type SessionHandles,
  useSessionContext,
  useSessionHandles,
  useTick,
  useTimeline,
} from './runtime/session-context.js';
export type { GuardRunReport, RunReport } from './runtime/session-options.js';
export type { StreamingOption } from './runtime/streaming.js';
export type { TickResult, TickToolCall, TickToolResult } from './runtime/tick-result.js';
export type { ToolExecuteContext } from './runtime/tool-context.js';
export { validateInput } from './runtime/tool-execution.js';
export { sameItems } from './runtime/tool-index.js';
export {
  DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  InvalidOptionError,
  type ToolOutputTruncation,
  ToolTimeoutError,
} from './runtime/tool-limits.js';
export { useSession } from './runtime/use-session.js';
export { looksSecret, type SandboxOptions } from './shell/policy.js';
export type { ShellResult } from './shell/run-command.js';
export {
  DEFAULT_SHELL_OUTPUT_CHARS,
  DEFAULT_SHELL_TIMEOUT_MS,
  Shell,
  type ShellProps,
} from './shell/shell.js';
// Shell: commands in a bubblewrap sandbox
export { SandboxUnavailableError } from './shell/shell-errors.js';
export { countSchema, type FamilySlice, nonNegativeSchema } from './state/family-slice.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './state/json.js';
export { LastOf } from './state/last-of.js';
export type {
  ChangedBy,
  GateStatus,
  GuardSlices,
  GuardStates,
  RunStatus,
  SeedState,
  SessionState,
  UsageTotals,
} from './state/session-state.js';
export { callSignature, canonicalJson, deepFreeze } from './state/update.js';
// Telemetry
export type { TelemetryOptions } from './telemetry/telemetry-options.js';
// Tick log: one bounded record per tick (agate studio)
export {
  DEFAULT_TICK_LOG_FIELD_CHARS,
  DEFAULT_TICK_LOG_TICKS,
  type MaterializedTick,
  materializeTicks,
  type TickLogOptions,
  type TickRecord,
  type TickRecordCall,
  type TickRequestDelta,
} from './tick-log/index.js';
// Web: AI SDK UI message streams and useChat requests
export {
  type AgateDataTypes,
  type AgateUIMessage,
  type AgateUIMessageChunk,
  type ChatApprovalResponse,
  ChatRequestError,
  type ChatSessionOptions,
  type ChatTurn,
  DEFAULT_MAX_CHAT_MESSAGE_CHARS,
  openChatSession,
  toUIMessageStream,
  type UIMessageStreamRunOptions,
} from './web/index.js';
export {
  changedFiles,
  type Fingerprint,
  fingerprintWorkspace,
  hashFile,
  markOf,
} from './workspace/fingerprint.js';
