import type { LanguageModel } from 'ai';
import type { SessionSnapshot } from '../persistence/snapshot.js';
import type { SessionStore } from '../persistence/store.js';
import type { JsonValue } from '../state/json.js';
import type { GateStatus, RunStatus, SessionState } from '../state/session-state.js';
import type { TelemetryOptions } from '../telemetry/options.js';
import type { AgateEvent, EventListener } from './events.js';
import type { ModelSettings } from './model-call.js';

export interface SessionOptions {
  /** Any AI SDK language model (a provider model, or `scriptedModel()` in tests). */
  model: LanguageModel;
  /** Ticks one `run()` may take before it ends (`max-ticks`, or `blocked` if a gate is engaged). Default 25. */
  maxTicks?: number;
  signal?: AbortSignal;
  onEvent?: EventListener;
  /** Settings passed through to the AI SDK call (temperature, maxOutputTokens, ...). */
  modelSettings?: ModelSettings;
  /**
   * Stream each model call (`streamText`, deltas as `model:delta` events). Default true; `false`
   * makes one `generateText` call per tick, for servers whose streaming is unreliable.
   */
  streaming?: boolean;
  /** Session id; defaults to a random UUID (or the snapshot's id). */
  id?: string;
  /** Seed state (tests, or a hand-built history). Ignored when a snapshot is given. */
  state?: Partial<SessionState>;
  /** Oldest messages are dropped past this many (default 5,000), never leaving an orphaned tool result. */
  maxTimelineMessages?: number;
  /** Events kept for `RunResult.events` (default 1,000). */
  maxEvents?: number;
  /** Extra checks that throw in development (deadlocked gates). Default: NODE_ENV !== 'production'. */
  devChecks?: boolean;
  /** Where checkpoints (and paused sessions) are saved. Default: files under `.agate/sessions`. */
  store?: SessionStore;
  /** Continue a session from `session.snapshot()` (possibly taken in another process). */
  snapshot?: SessionSnapshot;
  /** OpenTelemetry spans (see docs/observability.md): on when a tracer provider is registered. */
  telemetry?: TelemetryOptions;
}

export interface RunOptions {
  maxTicks?: number;
  signal?: AbortSignal;
}

export interface RunResult {
  status: RunStatus;
  /** Why the run ended, when it is not a plain completion. */
  reason?: string;
  /** Ticks taken by this `run()` call. */
  ticks: number;
  /** Ticks over the session's whole life. */
  totalTicks: number;
  /** The last assistant text. */
  text: string;
  timeline: SessionState['timeline'];
  gates: Record<string, GateStatus>;
  knobs: Record<string, JsonValue>;
  usage: SessionState['usage'];
  /** The most recent events (capped by `maxEvents`). */
  events: AgateEvent[];
  /** Set when `status` is `error`. */
  error?: Error;
}

/** What guard families add to a `RunResult` (each family fills its own fields). */
export type RunReport = Partial<
  Omit<RunResult, 'status' | 'reason' | 'ticks' | 'events' | 'error'>
>;

export type TickOutcome = { done: false } | { done: true; status: RunStatus; reason?: string };
