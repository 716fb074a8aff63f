import type { ModelMessage } from 'ai';

/** The three states of a gate (a knob with exit-blocking semantics). */
export type GateStatus = 'inactive' | 'active' | 'deferred';

/** Who changed a knob or gate: the model (set_knob), the host program, a supervisor, or the runtime. */
export type ChangedBy = 'model' | 'host' | 'supervisor' | 'runtime';

/** Tokens used, summed over model calls. */
export interface UsageTotals {
  /** Tokens sent to the model. */
  inputTokens: number;
  /** Tokens the model produced. */
  outputTokens: number;
  /** Both, as the provider counted them. */
  totalTokens: number;
}

/** How a run ended: `RunResult.status`, and `TickOutcome.status` once a tick ends it. */
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

/**
 * The built-in guard families' slices of `state.guards` (`gates`, `continue`, `checkpoints`,
 * `todos`, `phase`, `approvals`, `refusals`), declared by augmenting this interface in
 * guard-seam/built-in-family-types.ts, so this floor names no family. Guards made with `defineGuard` keep
 * theirs beside them, at `state.guards[name]`; the families' names are reserved.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the families' declarations (declaration merging).
export interface GuardStates {}

/** `state.guards`: every guard's own state, the built-in families' and `defineGuard` guards' (JSON). */
export type GuardSlices = GuardStates & { [guard: string]: unknown };

/** A seed state (`SessionOptions.state`): any runtime field, and any guard's whole slice. */
export type SeedState = Partial<Omit<SessionState, 'guards'>> & {
  guards?: Partial<GuardStates> & { [guard: string]: unknown };
};

/**
 * Everything a session is. Plain JSON (immer keeps it immutable) so that `session.snapshot()`
 * can hand it to another process and the run continues there. The runtime's own fields are at
 * the top; what a guard keeps is under `guards` (snapshot layout version 2; version 1 kept the
 * families' fields at the top and is migrated on load, see `persistence/migrate.ts`).
 */
export interface SessionState {
  /** The session's id. */
  id: string;
  /** Completed ticks over the session's whole life (all runs). */
  tick: number;
  /** The conversation: user messages, the model's replies and tool results. */
  timeline: ModelMessage[];
  /** Tokens used over the session's life. */
  usage: UsageTotals;
  /** Tool calls over the session's life. */
  toolCalls: number;
  /** Runtime notices shown as ephemeral content on the next tick only (for example exit refusals). */
  notices: string[];
  /** The last assistant text. */
  text: string;
  /** `idle` before the first run, `running` during one, then how the last ended. */
  status: RunStatus | 'idle' | 'running';
  /** Why the last run ended, when it was not a plain completion. */
  reason?: string;
  /**
   * Who the session belongs to: a web chat's owner (`openChatSession`'s `owner`), recorded
   * when the chat's session is created; a request as anyone else is refused.
   */
  owner?: string;
  /** Each guard's own state: the built-in families' slices and each `defineGuard` guard's, by name. */
  guards: GuardSlices;
}

/** A new session's runtime fields; `createInitialState` (guard-seam/) adds each family's slice. */
export function createCoreState(id: string): Omit<SessionState, 'guards'> {
  return {
    id,
    tick: 0,
    timeline: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    toolCalls: 0,
    notices: [],
    text: '',
    status: 'idle',
  };
}
