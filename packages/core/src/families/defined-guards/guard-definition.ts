import type { ModelMessage } from 'ai';
import type { ReactNode } from 'react';
import type { ZodType } from 'zod';
import type { JsonValue } from '../../ground/json.js';
import type { MaybePromise } from '../../ground/thenable.js';
import type { GuardEvent } from '../../runtime/events.js';
import type { UsageTotals } from '../../state/session-state.js';

/** A tool call as a guard sees it. */
export interface GuardToolCall {
  /** The provider's tool-call id. */
  readonly id: string;
  /** The tool called. */
  readonly toolName: string;
  /** The model's arguments, not yet validated against the tool's schema (untrusted). */
  readonly input: unknown;
}

/** What a tool call returned, as the model will see it. */
export interface GuardToolResult {
  /** What the model sees as the result. */
  readonly output: JsonValue;
  /** The call failed, or a guard refused it. */
  readonly isError: boolean;
  /** False when the call never ran: unknown tool, invalid arguments, or refused by a guard. */
  readonly executed: boolean;
  /** The guard (or built-in family) that refused the call, when one did. */
  readonly refusedBy?: string;
}

/** What every hook gets. `state` is the guard's own slice (`session.state.guards[name]`). */
export interface GuardContext<P, S> {
  /** The guard's name (`defineGuard({ name })`). */
  readonly name: string;
  /** The props the guard's component was rendered with (this tick's). */
  readonly props: P;
  /** The guard's state now (after any `setState` earlier in this hook). */
  readonly state: S;
  /**
   * Replaces the guard's state; JSON only (it travels in snapshots). With `stateSchema` the new
   * value is checked first. Takes effect at once: later hooks (and this one) see it.
   */
  setState(next: S | ((previous: S) => S)): void;
  /** The tick being run, 1-based over the session's life. */
  readonly tick: number;
  /** Tokens used by the session so far (every finished tick; all runs). */
  readonly usage: Readonly<UsageTotals>;
  /** The session the guard runs in. */
  readonly sessionId: string;
  /** The model's id (`gpt-4.1-mini`, ...) as its provider reports it; `undefined` if unknown. */
  readonly modelId: string | undefined;
  /** The session's timeline so far (finished ticks). */
  readonly timeline: readonly ModelMessage[];
  /**
   * Reports one of the events declared in `GuardEventMap` (see docs/guards.md): it reaches
   * `onEvent`, `session.subscribe`, `RunResult.events`, the tick log and spans.
   */
  emit(event: GuardEvent): void;
}

/** `render` sees the props and the state; it cannot change state or report (rendering must be pure). */
export type GuardRenderContext<P, S> = Omit<GuardContext<P, S>, 'setState' | 'emit'>;

/** What `onToolCall` receives: the guard's context and the call, before it runs. */
export interface GuardToolCallContext<P, S> extends GuardContext<P, S> {
  /** The call, before it runs. */
  readonly call: GuardToolCall;
}

/** What `onToolResult` receives: the call and its result. */
export interface GuardToolResultContext<P, S> extends GuardToolCallContext<P, S> {
  /** The call's result. */
  readonly result: GuardToolResult;
}

/** What `onTickEnd` receives: the tick's text and tool results. */
export interface GuardTickEndContext<P, S> extends GuardContext<P, S> {
  /** This tick's calls and their results, in the model's order. */
  readonly toolCalls: readonly GuardToolCall[];
  /** The tick's tool results, in call order. */
  readonly toolResults: readonly GuardToolResult[];
  /** The model's text of this tick. */
  readonly text: string;
  /** Tokens used by this tick's model call alone. */
  readonly tickUsage: Readonly<UsageTotals>;
}

/** Ends the run: `stopped` (a limit was reached) or `paused` (a person should look). */
export interface GuardEnd {
  /** How the run ends, and why. */
  end: { status: 'stopped' | 'paused'; reason: string };
}

/** Refuses: the tool call does not run, or the run may not finish yet. The model reads the text. */
export interface GuardRefusal {
  /** Why, for the model. */
  refuse: string;
}

/** Replaces what the model sees as a tool call's result (JSON). */
export interface GuardResultReplacement {
  /** The result the model sees instead. */
  result: JsonValue;
}

/** `undefined` (or nothing) lets the tick go on. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook that only updates state returns nothing, and may be async.
export type Answer<T> = T | undefined | void;

/**
 * A guard: hooks the runtime calls at fixed points of every tick while the guard's component is
 * mounted. Order inside one tick (see docs/guards.md): render → beforeModelCall → [model call] →
 * for each tool call: beforeToolCall → [execute] → afterToolCall → [commit] → tickEnd →
 * exitAttempt (only when the model tries to finish).
 */
export interface GuardDefinition<P, S> {
  /** Names the guard's state (`session.state.guards[name]`), its refusals and its errors. */
  name: string;
  /** The state before the first `setState` (JSON). */
  initialState?: S;
  /** Checks the state restored from a snapshot (and every `setState`); an error names the path. */
  stateSchema?: ZodType<S>;
  /** Checks the component's props at every render; a bad prop is an error naming the guard. */
  propsSchema?: ZodType<P>;
  /**
   * Exit attempts `exitAttempt` may refuse in a row before the run ends `blocked` with its
   * reason (as a gate's `maxBlocks`). Default 5.
   */
  maxRefusals?: number;
  /** What the guard adds to the model's context (instructions, tools, ephemeral notes). */
  render?(context: GuardRenderContext<P, S>): ReactNode;
  /** Before each model call: may end the run before it spends anything. */
  beforeModelCall?(context: GuardContext<P, S>): MaybePromise<Answer<GuardEnd>>;
  /** Before each tool call runs: a refusal becomes the tool error the model sees. */
  beforeToolCall?(context: GuardToolCallContext<P, S>): MaybePromise<Answer<GuardRefusal>>;
  /** After each tool call (also a refused or invalid one): may replace what the model sees. */
  afterToolCall?(
    context: GuardToolResultContext<P, S>,
  ): MaybePromise<Answer<GuardResultReplacement>>;
  /** After the tick was recorded: update the state from what it did; may end the run. */
  tickEnd?(context: GuardTickEndContext<P, S>): MaybePromise<Answer<GuardEnd>>;
  /** The model is trying to finish: a refusal keeps the loop going, its text shown to the model. */
  exitAttempt?(context: GuardContext<P, S>): Answer<GuardRefusal>;
}

/** The component `defineGuard` returns: mounting it installs the guard for the session. */
export interface GuardComponent<P> {
  /** Renders the guard: declares it with these props and renders what its `render` returns. */
  (props: P): ReactNode;
  /** The guard's name. */
  readonly guardName: string;
  /** The guard's name, as React devtools and errors show it. */
  displayName?: string;
}
