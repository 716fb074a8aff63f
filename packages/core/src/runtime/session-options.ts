import type { LanguageModel } from 'ai';
import type { ContextBudgetOptions } from '../context-budget/budget-options.js';
import type { AgateError } from '../ground/agate-error.js';
import type { JsonValue } from '../ground/json.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { SessionSnapshot } from '../persistence/snapshot.js';
import type { GateStatus, RunStatus, SeedState, SessionState } from '../state/session-state.js';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';
import type { TickLogOptions } from '../tick-log/tick-record.js';
import type { DurableSteps } from './durable-steps.js';
import type { AgateEvent, EventListener } from './events.js';
import type { ModelSettings } from './model-call.js';
import type { StreamingOption } from './streaming.js';

/**
 * Options of `createSession`: the model, limits, events, persistence, and the guard families'
 * settings.
 */
export interface SessionOptions {
  /** Any AI SDK language model (a provider model, or `scriptedModel()` in tests). */
  model: LanguageModel;
  /** Ticks one `run()` may take before it ends (`max-ticks`, or `blocked` if a gate is engaged). Default 25. */
  maxTicks?: number;
  /** Aborts every run of the session (a run ends `aborted`). */
  signal?: AbortSignal;
  /** Receives every event. It does not make the model call stream (see `streaming`). */
  onEvent?: EventListener;
  /** Settings passed through to the AI SDK call (temperature, maxOutputTokens, ...). */
  modelSettings?: ModelSettings;
  /**
   * `'auto'` (default): stream a model call (`streamText`, deltas as `model:delta` events as they
   * arrive) only while a listener subscribed for `model:delta` by type
   * (`session.subscribe(fn, { types: ['model:delta'] })`); otherwise one `generateText` call,
   * whose whole text still arrives as one `model:delta`. `true`: always stream. `false`: never,
   * for servers whose streaming is unreliable. Results, state and other events are the same.
   */
  streaming?: StreamingOption;
  /** Session id; defaults to a random UUID (or the snapshot's id). */
  id?: string;
  /**
   * The agent's name in traces (`gen_ai.agent.name`, the `invoke_agent {name}` span). Default:
   * the root component's name (`<Coder />` → `Coder`), else `agent`.
   */
  name?: string;
  /** Seed state (tests, or a hand-built history). Ignored when a snapshot is given. */
  state?: SeedState;
  /** Oldest messages are dropped past this many (default 5,000), never leaving an orphaned tool result. */
  maxTimelineMessages?: number;
  /**
   * Events kept for `RunResult.events` (default 1,000): the run's own, its last `maxEvents`. The
   * result takes them, so an idle session keeps no copy.
   */
  maxEvents?: number;
  /** Extra checks that throw in development (deadlocked gates). Default: NODE_ENV !== 'production'. */
  devChecks?: boolean;
  /** Where checkpoints (and paused sessions) are saved. Default: files under `.agate/sessions`. */
  store?: SessionStore;
  /** Continue a session from `session.snapshot()` (possibly taken in another process). */
  snapshot?: SessionSnapshot;
  /**
   * Time limit of every tool call, in ms (`<Tool timeoutMs>` wins). A call over it becomes a
   * tool error the model sees and its `abortSignal` fires. Default: no limit.
   */
  toolTimeoutMs?: number;
  /**
   * Characters of one tool result the model sees (its JSON text for non-strings); the rest is
   * cut with a marker. The `tool:result` event keeps the full value. Default 100,000.
   */
  maxToolOutputChars?: number;
  /**
   * Signs every entry of the checkpoint and tool-call ledgers (HMAC-SHA256) and accepts only
   * validly signed approvals in a restored session. Default: the `AGATE_APPROVAL_KEY` environment variable; without
   * either, approvals are unsigned (see docs/checkpoints.md).
   */
  approvalKey?: string;
  /**
   * The public half of an Ed25519 key pair (PEM text, a PEM file path, or a `KeyObject`):
   * decisions are accepted only when signed with its private key, which the run never holds
   * (see docs/security.md; `agate keys new` makes a pair). Default: `AGATE_APPROVAL_PUBLIC_KEY`.
   * Wins over `approvalKey` for new decisions; `approvalKey` still verifies version-1 decisions.
   */
  approvalPublicKey?: string | import('node:crypto').KeyObject;
  /** A token budget per request: pruned by priority, with a prefix that stays cached (docs/context-budget.md). */
  context?: ContextBudgetOptions;
  /** OpenTelemetry spans (see docs/observability.md): on when a tracer provider is registered. */
  telemetry?: TelemetryOptions;
  /**
   * Keep a bounded record of every tick (`session.ticks()`; appended to `store` when it keeps
   * tick logs): what `agate studio` shows. Off by default; `true` takes the defaults
   * (1,000 ticks, 10,000 characters per field). See docs/studio.md for its size.
   */
  tickLog?: boolean | TickLogOptions;
  /**
   * Runs each tick's model call and each tool call through a durable engine, which may answer
   * from its record instead of calling again (`@agate/dbos` sets this; see docs/durable.md).
   */
  steps?: DurableSteps;
}

/** Options of one `session.run()` call, over the session's own. */
export interface RunOptions {
  /** Ticks this run may take, instead of the session's `maxTicks`. */
  maxTicks?: number;
  /** Aborts this run (it ends `aborted`). */
  signal?: AbortSignal;
  /** This run's token budget, instead of the session's (for example a larger one to resume). */
  context?: ContextBudgetOptions;
  /**
   * Run a stored session even though another process's claim on it is stored (that process
   * was killed, or its machine lost). Without it such a `run()` throws
   * `SessionRunningElsewhereError`. See docs/persistence.md.
   */
  takeOver?: boolean;
}

/**
 * Fields guard families add to every `RunResult` (`todos`, `checkpoints`, `phase`, ...), by
 * augmenting this interface (the built-in families in guard-seam/built-in-family-types.ts), so
 * this floor names no family.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the families' declarations (declaration merging).
export interface GuardRunReport {}

/**
 * How a `run()` ended: its status and reason, ticks, usage, events, and what each guard family
 * reports.
 */
export interface RunResult<O = unknown> extends GuardRunReport {
  /** How the run ended. */
  status: RunStatus;
  /** Why the run ended, when it is not a plain completion. */
  reason?: string;
  /** Ticks taken by this `run()` call. */
  ticks: number;
  /** Ticks over the session's whole life. */
  totalTicks: number;
  /** The last assistant text (a reply continued after an output-limit cut-off, whole). */
  text: string;
  /**
   * The provider's finish reason of the run's last model call (`stop`, `tool-calls`, `length`,
   * `content-filter`, ...), as the AI SDK reports it. Absent when no model call was made.
   */
  finishReason?: string;
  /** The conversation at the end of the run. */
  timeline: SessionState['timeline'];
  /** Each gate's state at the end of the run. */
  gates: Record<string, GateStatus>;
  /** Each knob's value at the end of the run. */
  knobs: Record<string, JsonValue>;
  /** Tokens used over the session's life. */
  usage: SessionState['usage'];
  /** This run's events, its last `maxEvents` (an earlier run's are in that run's result). */
  events: AgateEvent[];
  /**
   * Set when `status` is `error`: what failed, with `tick` and `step` saying where (`reason`
   * names both). Provider failures are a `ModelCallError` with `statusCode` and `attempts`.
   */
  error?: AgateError;
  /**
   * `<Output schema>`: the value the model gave `final_answer`, checked against the schema; set
   * only when the run `completed`. Type it with `run<z.infer<typeof Schema>>(…)`.
   */
  output?: O;
}

/** What guard families add to a `RunResult` (each family fills its own fields). */
export type RunReport = Partial<
  Omit<RunResult, 'status' | 'reason' | 'ticks' | 'events' | 'error' | 'finishReason'>
>;

/** What `session.tick()` returns: not done yet, or how the run ended. */
export type TickOutcome = { done: false } | { done: true; status: RunStatus; reason?: string };
