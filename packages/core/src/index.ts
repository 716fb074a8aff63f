// @agate/core: what an agent author uses. Writing a guard family, a store, or a tool that reads
// the built-in guards' records is done with the subpaths, listed with these in package.json
// `exports` and recorded in api/*.api.md (docs/migrating.md says where each name went).

// Approvals: the signed decision ledgers of checkpoints and of held tool calls
export type {
  CheckpointCause,
  CheckpointLedgerEntry,
  CheckpointLedgerKind,
  LedgerEntry,
  LedgerEntryFields,
  LedgerKind,
  SignedAs,
  ToolCallDecisionKind,
  ToolCallLedgerEntry,
  ToolLedgerEntry,
  ToolLedgerKind,
} from './approvals/ledger-types.js';
// Phase gates
export type { ToolCategory } from './checks/tool-category.js';
export { TOOL_CATEGORIES } from './checks/tool-category.js';
// Components
export {
  Assistant,
  Message,
  type MessageProps,
  type MessageRole,
  User,
} from './components/message.js';
export {
  DuplicateToolError,
  InvalidElementError,
  RenderError,
} from './components/render-errors.js';
export { useTick, useTimeline } from './components/session-state-context.js';
export { Ephemeral, Section, System } from './components/text.js';
export { Timeline, type TimelineProps } from './components/timeline.js';
export type { ToolGuardProps } from './components/tool.js';
export {
  defineTool,
  Tool,
  type ToolDefinition,
  type ToolProps,
} from './components/tool.js';
export type { ToolExecuteContext } from './components/tool-context.js';
export { type ToolOptions, ToolResultError, Tools, type ToolsProps } from './components/tools.js';
export {
  type ContextBudgetOptions,
  estimateTokens,
  type Tokenizer,
} from './context-budget/budget-options.js';
export type { BudgetHolding } from './context-budget/context-budget-errors.js';
// Context budgets
export {
  ContextBudgetError,
  InvalidContextBudgetError,
} from './context-budget/context-budget-errors.js';
// Checkpoints
export {
  ApprovalKeyError,
  type ApproveInput,
  approveCheckpoint,
  Checkpoint,
  CheckpointDecisionError,
  CheckpointDeclarationError,
  CheckpointNotPendingError,
  type CheckpointProps,
  type CheckpointTrigger,
  generateApprovalKeyPair,
  MissingApprovalKeyError,
  type RejectInput,
  rejectCheckpoint,
  UnknownCheckpointError,
  UnknownSessionError,
} from './families/checkpoints/index.js';
export { CommandGate } from './families/command-gate/command-gate.js';
export type { CommandGateProps } from './families/command-gate/command-gate-props.js';
export type {
  CommandGateStatus,
  HostCheck,
} from './families/command-gate/command-gate-types.js';
// Gates and knobs
export { ContinueGate } from './families/continue-gate/continue-gate.js';
export type {
  ContinueDecision,
  ContinueEvaluation,
  ContinueGateConfig,
  StepContext,
} from './families/continue-gate/continue-gate-config.js';
export type {
  ContinueGateEvaluator,
  ContinueGateStats,
  ContinueHistoryEntry,
} from './families/continue-gate/continue-gate-evaluator.js';
export type {
  ContinueGateProps,
  ContinueSignals,
  ReworkHistory,
} from './families/continue-gate/continue-gate-props.js';
export { InvalidContinueConfigError } from './families/continue-gate/index.js';
// Guards anyone can write: defineGuard (docs/guards.md)
export { defineGuard } from './families/defined-guards/define-guard.js';
export {
  GuardDefinitionError,
  GuardHookError,
  GuardStateError,
} from './families/defined-guards/defined-guard-errors.js';
// What a guard's hooks receive; the rest of the guard seam is in @agate/core/guards.
export type {
  Answer,
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
// Todos
export { Todos, type TodosProps, useTodos } from './families/evidence/index.js';
export type { TodoEvidence, TodoItem, TodoStatus } from './families/evidence/todo-types.js';
export { TODO_STATUSES } from './families/evidence/todo-types.js';
export { Gate, type GateProps } from './families/gates-and-knobs/gate.js';
export { gate } from './families/gates-and-knobs/gate-descriptor.js';
export type { GateTick, TypedTool } from './families/gates-and-knobs/gate-tick.js';
export { GatePredicateError } from './families/gates-and-knobs/gate-transitions.js';
export type {
  GateClearer,
  GateDescriptor,
  GateHistory,
} from './families/gates-and-knobs/gate-types.js';
export { Knob, type KnobProps } from './families/gates-and-knobs/knob.js';
export type { KnobOptions } from './families/gates-and-knobs/knob-types.js';
export { type GateState, useGate } from './families/gates-and-knobs/use-gate.js';
export { useKnob } from './families/gates-and-knobs/use-knob.js';
// Output: a run that ends in a checked object
export { Output, type OutputProps } from './families/output/output.js';
export { PhaseGates, usePhaseGates } from './families/phase-gates/phase-gates.js';
export type { PhaseGatesProps } from './families/phase-gates/phase-gates-props.js';
export { PhasePrompt } from './families/phase-gates/phase-prompt.js';
export type {
  PhaseEvidence,
  PhaseGateOptions,
  PhaseStatus,
  VerificationLevel,
} from './families/phase-gates/phase-types.js';
export { SubAgent } from './families/sub-agents/sub-agent.js';
// Sub-agents: a tool whose call runs a child agent
export { SubAgentError } from './families/sub-agents/sub-agent-errors.js';
export type { SubAgentProps } from './families/sub-agents/sub-agent-types.js';
// Human approval of single tool calls (<Tool needsApproval>)
export {
  approveToolCall,
  denyToolCall,
  type NeedsApproval,
  type NeedsApprovalContext,
  ToolApprovalDecisionError,
  type ToolApprovalInput,
  ToolCallNotPendingError,
  type ToolDenialInput,
  UnknownToolCallError,
} from './families/tool-approvals/index.js';
// The ground floor: the errors' base, JSON values, maybe-promises
export { AgateError, type FaultStep, nameErrorClass } from './ground/agate-error.js';
export type { JsonPrimitive, JsonValue } from './ground/json.js';
export type { MaybePromise } from './ground/thenable.js';
// The guard seam
export type { FamilyApi } from './guard-seam/built-in-family-api.js';
// MCP servers
export {
  McpConfigError,
  McpServer,
  McpServerError,
  type McpServerProps,
} from './mcp/index.js';
export type { McpHttpServerProps, McpServerCommon, McpStdioServerProps } from './mcp/mcp-server.js';
export type { ToolSelection } from './mcp/tool-names.js';
// Persistence
export {
  createFileStore,
  createMemoryStore,
  InvalidSessionIdError,
  type ListOptions,
  type SaveOptions,
  SessionLockError,
  type SessionSnapshot,
  type SessionStore,
  type SessionSummary,
  SnapshotError,
  StaleSessionError,
} from './persistence/index.js';
export type { RestorePointSummary } from './persistence/session-store.js';
export { SNAPSHOT_FORMAT } from './persistence/snapshot.js';
export type { ContextBudgetReport, DroppedCounts } from './renderer/budget-report.js';
export type { CompiledContext, CompiledTool, EphemeralBlock } from './renderer/compiled-context.js';
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
export type { ModelSettings, ModelTurn } from './runtime/model-call.js';
export { run } from './runtime/run.js';
export { SessionRunningElsewhereError } from './runtime/run-claim.js';
// Runtime
export {
  GateDeadlockError,
  KnobDeclarationError,
  ModelCallError,
} from './runtime/runtime-errors.js';
export {
  createSession,
  type RunOptions,
  type RunResult,
  Session,
  type SessionOptions,
} from './runtime/session.js';
export type { TickOutcome } from './runtime/session-options.js';
export type { StreamingOption } from './runtime/streaming.js';
export { InvalidOptionError, ToolTimeoutError } from './runtime/tool-limits.js';
export type { ToolOutputTruncation } from './runtime/tool-outcome.js';
export { useSession } from './runtime/use-session.js';
export type { SandboxOptions } from './shell/policy.js';
export type { ShellResult } from './shell/run-command.js';
export { Shell, type ShellProps } from './shell/shell.js';
// Shell: commands in a bubblewrap sandbox
export { NetworkAllowEntryError, SandboxUnavailableError } from './shell/shell-errors.js';
// State
export type {
  ChangedBy,
  GateStatus,
  GuardSlices,
  RunStatus,
  SeedState,
  SessionState,
  UsageTotals,
} from './state/session-state.js';
export { SessionStateError } from './state/session-state-error.js';
export type { TickResult, TickToolCall, TickToolResult } from './state/tick-result.js';
// Telemetry
export type { TelemetryOptions } from './telemetry/telemetry-options.js';
export type {
  TickLogOptions,
  TickRecord,
  TickRecordCall,
  TickRequestDelta,
} from './tick-log/tick-record.js';
// Web: AI SDK UI message streams and useChat requests
export {
  type AgateDataTypes,
  type AgateUIMessage,
  type AgateUIMessageChunk,
  ChatConflictError,
  ChatOwnerError,
  ChatRequestError,
  type ChatSessionOptions,
  type ChatTurn,
  openChatSession,
  toUIMessageStream,
  type UIMessageStreamRunOptions,
} from './web/index.js';
