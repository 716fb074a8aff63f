// @agate/core: what an agent author uses. Writing a guard family, a store, or a tool that reads
// the built-in guards' records is done with the subpaths, listed with these in package.json
// `exports` and recorded in api/*.api.md (docs/migrating.md says where each name went).

// Components
export {
  Assistant,
  Message,
  type MessageProps,
  User,
} from './components/message.js';
export { Ephemeral, Section, System } from './components/text.js';
export { Timeline, type TimelineProps } from './components/timeline.js';
export { Tool, type ToolProps } from './components/tool.js';
export {
  type ToolOptions,
  ToolResultError,
  Tools,
  type ToolsProps,
} from './components/tools.js';
// Context budgets
export { ContextBudgetError, InvalidContextBudgetError } from './context/errors.js';
export { type ContextBudgetOptions, estimateTokens, type Tokenizer } from './context/options.js';
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
} from './gates/approvals/index.js';
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
  generateApprovalKeyPair,
  MissingApprovalKeyError,
  type RejectInput,
  rejectCheckpoint,
  UnknownCheckpointError,
  UnknownSessionError,
} from './gates/checkpoint/index.js';
// Gates and knobs
export { ContinueGate } from './gates/continue/continue-gate.js';
export { InvalidContinueConfigError } from './gates/continue/index.js';
export type { ContinueGateProps } from './gates/continue/props.js';
export { gate } from './gates/descriptor.js';
// Todos
export { Todos, type TodosProps, useTodos } from './gates/evidence/index.js';
export { Gate, type GateProps } from './gates/gate.js';
export { Knob, type KnobProps } from './gates/knob.js';
export type { KnobOptions } from './gates/knob-types.js';
// Output: a run that ends in a checked object
export { Output, type OutputProps } from './gates/output/output.js';
// Phase gates
export type { ToolCategory } from './gates/phase/category.js';
export { PhaseGates, usePhaseGates } from './gates/phase/phase-gates.js';
export { PhasePrompt } from './gates/phase/prompt.js';
export type { PhaseGatesProps } from './gates/phase/props.js';
export { GatePredicateError } from './gates/tick-end.js';
export type { GateDescriptor } from './gates/types.js';
export { type GateState, useGate } from './gates/use-gate.js';
export { useKnob } from './gates/use-knob.js';
// Guards anyone can write: defineGuard (docs/guards.md)
export { defineGuard } from './guards/define/define-guard.js';
export {
  GuardDefinitionError,
  GuardHookError,
  GuardStateError,
} from './guards/define/errors.js';
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
} from './guards/define/types.js';
// MCP servers
export {
  McpConfigError,
  McpServer,
  McpServerError,
  type McpServerProps,
} from './mcp/index.js';
// Persistence
export {
  createFileStore,
  createMemoryStore,
  InvalidSessionIdError,
  SessionLockError,
  type SessionSnapshot,
  type SessionStore,
  SnapshotError,
  StaleSessionError,
} from './persistence/index.js';
// Runtime
export {
  AgateError,
  DuplicateToolError,
  type FaultStep,
  GateDeadlockError,
  InvalidElementError,
  KnobDeclarationError,
  ModelCallError,
  RenderError,
  SessionStateError,
} from './runtime/errors.js';
export type {
  AgateEvent,
  AgateEventType,
  EventListener,
  GuardEventMap,
  SubscribeOptions,
} from './runtime/events.js';
export { RunError } from './runtime/fault.js';
export type { ModelSettings } from './runtime/model-call.js';
export { run } from './runtime/run.js';
export { SessionRunningElsewhereError } from './runtime/run-claim.js';
export {
  createSession,
  type RunOptions,
  type RunResult,
  Session,
  type SessionOptions,
} from './runtime/session.js';
export { useTick, useTimeline } from './runtime/session-context.js';
export type { TickResult } from './runtime/tick-result.js';
export type { ToolExecuteContext } from './runtime/tool-context.js';
export { InvalidOptionError, ToolTimeoutError } from './runtime/tool-limits.js';
export { useSession } from './runtime/use-session.js';
// Shell: commands in a bubblewrap sandbox
export { SandboxUnavailableError } from './shell/errors.js';
export type { SandboxOptions } from './shell/policy.js';
export type { ShellResult } from './shell/run-command.js';
export { Shell, type ShellProps } from './shell/shell.js';
// State
export type { JsonValue } from './state/json.js';
export type { RunStatus, SessionState } from './state/session-state.js';
// Sub-agents: a tool whose call runs a child agent
export { SubAgentError } from './subagents/errors.js';
export { SubAgent } from './subagents/sub-agent.js';
export type { SubAgentProps } from './subagents/types.js';
// Telemetry
export type { TelemetryOptions } from './telemetry/options.js';
// Web: AI SDK UI message streams and useChat requests
export {
  type AgateDataTypes,
  type AgateUIMessage,
  type AgateUIMessageChunk,
  ChatRequestError,
  type ChatSessionOptions,
  type ChatTurn,
  openChatSession,
  toUIMessageStream,
  type UIMessageStreamRunOptions,
} from './web/index.js';
