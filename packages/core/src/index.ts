// Components
export { Assistant, Message, type MessageRole, User } from './components/message.js';
export { Ephemeral, Section, System } from './components/text.js';
export { Timeline, type TimelineProps } from './components/timeline.js';
export { Tool, type ToolProps } from './components/tool.js';

// Gates and knobs
export { ContinueGate } from './gates/continue/continue-gate.js';
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
} from './gates/continue/index.js';
export type {
  ContinueGateProps,
  ContinueSignals,
  ReworkHistory,
} from './gates/continue/props.js';
export { gate } from './gates/descriptor.js';
export { decideExit, type ExitDecision } from './gates/exit.js';
export { Gate, type GateProps } from './gates/gate.js';
export { Knob, type KnobProps } from './gates/knob.js';
export type { KnobInfo, KnobOptions } from './gates/knob-types.js';
export { SET_KNOB_TOOL } from './gates/set-knob-tool.js';
export { GatePredicateError } from './gates/tick-end.js';
export {
  DEFAULT_MAX_BLOCKS,
  type GateClearer,
  type GateDescriptor,
  type GateHistory,
  type GateInfo,
} from './gates/types.js';
export { type GateState, useGate } from './gates/use-gate.js';
export { useKnob } from './gates/use-knob.js';

// Persistence
export {
  createFileStore,
  createMemoryStore,
  DEFAULT_SESSIONS_DIR,
  InvalidSessionIdError,
  type SessionSnapshot,
  type SessionStore,
  type SessionSummary,
  SNAPSHOT_VERSION,
  SnapshotError,
} from './persistence/index.js';

// Renderer output
export {
  type CompiledContext,
  type CompiledTool,
  type EphemeralBlock,
  isCompiledContext,
} from './renderer/compiled-context.js';

// Runtime
export {
  AgateError,
  DuplicateToolError,
  GateDeadlockError,
  InvalidElementError,
  KnobDeclarationError,
  ModelCallError,
  RenderError,
  SessionStateError,
} from './runtime/errors.js';
export type { AgateEvent, AgateEventType, EventListener } from './runtime/events.js';
export type { ModelSettings } from './runtime/model-call.js';
export { run } from './runtime/run.js';
export {
  createSession,
  type RunOptions,
  type RunResult,
  Session,
  type SessionOptions,
  type TickOutcome,
} from './runtime/session.js';
export { useSession, useTick, useTimeline } from './runtime/session-context.js';
export type { TickResult, TickToolCall, TickToolResult } from './runtime/tick-result.js';
export type { ToolExecuteContext } from './runtime/tool-context.js';
// State
export type { JsonObject, JsonPrimitive, JsonValue } from './state/json.js';
export type {
  ChangedBy,
  GateRecord,
  GateStatus,
  RunStatus,
  SessionState,
  UsageTotals,
} from './state/session-state.js';
// Telemetry
export type { TelemetryOptions } from './telemetry/options.js';
