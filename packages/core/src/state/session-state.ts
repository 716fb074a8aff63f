import type { ModelMessage } from 'ai';
import type { JsonValue } from './json.js';

/** The three states of a gate (a knob with exit-blocking semantics). */
export type GateStatus = 'inactive' | 'active' | 'deferred';

/** Who changed a knob or gate: the model (set_knob), the host program, a supervisor, or the runtime. */
export type ChangedBy = 'model' | 'host' | 'supervisor' | 'runtime';

export interface GateRecord {
  state: GateStatus;
  /** Exit attempts this gate has refused since it was last cleared. */
  blocks: number;
  changedBy?: ChangedBy;
  changedAtTick?: number;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export type RunStatus =
  | 'completed'
  | 'blocked'
  | 'stopped'
  | 'paused'
  | 'awaiting-approval'
  | 'max-ticks'
  /** The reply was cut off by the output limit, again after being asked to continue. */
  | 'output-limit'
  /** The provider's content filter stopped the reply. */
  | 'content-filter'
  | 'aborted'
  | 'error';

/** Bookkeeping the ContinueGate reads; kept in state so budgets survive a resume. */
export interface ProgressState {
  /** Steps since the run started or was last resumed by a person. */
  stepNumber: number;
  lastCheckpointStep: number;
  reworkCount: number;
  /** Tokens used by each recent tick, oldest first (capped). */
  stepTokens: number[];
  /** Canonical signatures of recent tool calls, for the default rework detector (capped). */
  callSignatures: string[];
  /** Wall time spent inside ticks, summed over every run of this session. */
  elapsedMs: number;
}

/**
 * The state fields of the built-in guard families (`todos`, `checkpoints`, `phase`, ...): each
 * family declares its own by augmenting this interface beside its code, so this floor names no
 * family. Guards made with `defineGuard` keep theirs in `guards` instead.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the families' declarations (declaration merging).
export interface GuardStates {}

/**
 * Everything a session is. Plain JSON (immer keeps it immutable) so that `session.snapshot()`
 * can hand it to another process and the run continues there.
 */
export interface SessionState extends GuardStates {
  id: string;
  /** Completed ticks over the session's whole life (all runs). */
  tick: number;
  timeline: ModelMessage[];
  knobs: Record<string, JsonValue>;
  gates: Record<string, GateRecord>;
  usage: UsageTotals;
  toolCalls: number;
  /** Runtime notices shown as ephemeral content on the next tick only (for example exit refusals). */
  notices: string[];
  /** The last assistant text. */
  text: string;
  status: RunStatus | 'idle' | 'running';
  reason?: string;
  progress: ProgressState;
  /** Each `defineGuard` guard's own state, by guard name (JSON; absent until its first `setState`). */
  guards: Record<string, JsonValue>;
  /** Exit attempts each `defineGuard` guard has refused in a row (absent: none). */
  guardRefusals: Record<string, number>;
}

export const STEP_TOKENS_CAP = 50;
export const CALL_SIGNATURES_CAP = 2_000;

/** The session state without the families' fields (`guards/initial-state.ts` adds them). */
export type CoreState = Omit<SessionState, keyof GuardStates>;

/** A new session's state, less what the guard families add (see `createInitialState` in guards/). */
export function createCoreState(id: string): CoreState {
  return {
    id,
    tick: 0,
    timeline: [],
    knobs: {},
    gates: {},
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    toolCalls: 0,
    notices: [],
    text: '',
    status: 'idle',
    progress: {
      stepNumber: 0,
      lastCheckpointStep: 0,
      reworkCount: 0,
      stepTokens: [],
      callSignatures: [],
      elapsedMs: 0,
    },
    guards: {},
    guardRefusals: {},
  };
}
