import type { ReactNode } from 'react';
import type { JsonValue } from '../ground/json.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { SessionSnapshot } from '../persistence/snapshot.js';
import type { CompiledTree } from '../renderer/compile.js';
import type {
  CompiledContext,
  CompiledTool,
  ContextReports,
  EphemeralBlock,
} from '../renderer/compiled-context.js';
import type { DeclarationRegistry } from '../runtime/declarations.js';
import type { AgateEvent } from '../runtime/events.js';
import type {
  RunOptions,
  RunReport,
  RunResult,
  SessionOptions,
} from '../runtime/session-options.js';
import type { ToolCallOutcome } from '../runtime/tool-outcome.js';
import type { FamilySlice } from '../state/family-slice.js';
import type { GuardStates, RunStatus, SessionState } from '../state/session-state.js';
import type { TickResult, TickToolCall } from '../state/tick-result.js';

/**
 * The guard seam. A guard family (gates, the ContinueGate, checkpoints, evidence, phase gates)
 * plugs into the tick at these points and nowhere else; the runtime calls every family in the
 * fixed order of `guard-seam/built-in-families.ts` and merges their answers (the strictest wins,
 * every refusal reason is shown). The tick loop itself knows no family by name.
 *
 * Order inside one tick:
 *   runStart (once per run) → render → releaseHeldCalls (each released call as below) →
 *   beforeModelCall → [model] →
 *   for each tool call: beforeToolCall → [execute] → afterToolCall →
 *   [commit] → tickEnd → exitAttempt (when the model made no tool call, or `finishRequested`)
 *   → [the result of a `finishTools` call, now judged, is stored and streamed]
 */
export interface Guard {
  /** The family's name, used in events and refusal notices (`gates`, `checkpoints`, ...). */
  readonly name: string;

  /**
   * Names of the tools this family adds itself (`set_knob`, `final_answer`, …), whether or not
   * it adds them this render: a tool that gives way (an `<McpServer>`'s) is never mounted under
   * one of them. A `<Tool>` of the agent's own under such a name is the family's to refuse.
   */
  readonly reservedTools?: readonly string[];

  /**
   * Names of the family's tools whose call asks to finish (`final_answer`): such a call that ran
   * without error gets its result only once the exit is judged, in the same tick, before the
   * result is stored or streamed. Accepted, it keeps the tool's own result; refused (or the run
   * ended first), the model, the timeline and every event read `Not accepted: <reasons>`.
   */
  readonly finishTools?: readonly string[];

  /**
   * The family's slice of `state.guards`, declared as the built-in families declare theirs: the
   * session starts it at `initialState()` when it has none, and a slice that came in a snapshot
   * or a seed state is checked against `stateSchema` before the session exists (an error names
   * the path). Declare its type by augmenting `GuardStates`.
   */
  readonly slice?: FamilySlice;

  /** A new `run()` (a turn) starts. `resumedByPerson`: the last run ended paused or stopped. */
  runStart?(info: RunStartInfo): void;

  /**
   * Whether the family has work in this tick's per-call hooks (`check`, `beforeModelCall`,
   * `beforeToolCall`, `afterToolCall`, `tickEnd`, `finishRequested`): asked once per render,
   * after `render`. `false` (nothing of the family is rendered and nothing of it is in the
   * state) skips those hooks until the next render, so a family that is not mounted costs a
   * tick nothing. Without this method the family is always asked. The other hooks (`render`,
   * `exitAttempt`, the run's start and end) are always called.
   */
  engaged?(): boolean;

  /**
   * While the context is compiled: tools and ephemeral blocks the family adds itself (the
   * `set_knob` tool, the `submit_checkpoint` tool, warnings). Called every render; keep it cheap.
   */
  render?(tree: CompiledTree): GuardContribution | undefined;

  /** After the whole context is compiled: report declarations that can never work. */
  check?(context: CompiledContext): void;

  /** Before the model call. May end the run (stop, pause, awaiting approval) or delay it. */
  beforeModelCall?(tick: GuardTick): BeforeModelVerdict | Promise<BeforeModelVerdict>;

  /**
   * Before a tool's `execute`. A refusal becomes the tool error the model sees; `execute` never
   * runs. A hold keeps the call without running it or answering it this tick (a person must
   * decide): the family that holds a call must release it (`releaseHeldCalls`). Families are
   * asked in order and the first refusal or hold decides, so a call one family refuses is never
   * held by a later one. May be async (a `needsApproval` function).
   */
  beforeToolCall?(tick: GuardTick, call: TickToolCall): ToolCallVerdict | Promise<ToolCallVerdict>;

  /**
   * At the start of a tick, after render and before `beforeModelCall`: held calls (of earlier
   * ticks) that may go on now, in call order. The runtime runs each one that has no `answer`
   * through the usual path (every family's `beforeToolCall`, `execute`, `afterToolCall`), answers
   * the others with `answer` (`afterToolCall` sees them, not executed), puts the results in the
   * timeline after the calls' assistant message, in call order, and renders again.
   */
  releaseHeldCalls?(tick: GuardTick): ReleasedCall[];

  /**
   * After a tool call ran (or was refused). May be async (a file fingerprint). A refusal here
   * does not undo the call; a guard that must stop the calls after it (a checkpoint that just
   * went pending) refuses those in `beforeToolCall`. A replacement changes what the model sees
   * (and what the families after this one see in `outcome.result`).
   */
  afterToolCall?(
    tick: GuardTick,
    outcome: ToolCallOutcome,
    // biome-ignore lint/suspicious/noConfusingVoidType: most families' afterToolCall returns nothing.
  ): void | ToolCallReplacement | Promise<void | ToolCallReplacement>;

  /**
   * After the tick was committed to the state: update the family's own state from what it did.
   * May end the run right there (a checkpoint that went pending); the tick stays committed.
   */
  tickEnd?(
    tick: GuardTick,
    result: TickResult,
    info: TickEndInfo,
  ): void | BeforeModelVerdict | Promise<void> | Promise<BeforeModelVerdict>;

  /**
   * After the tick: whether its tool calls ask to finish (a final answer), so that the exit is
   * judged as for a reply without tool calls. Name the tool in `finishTools` too, so that its
   * result reads as the judgement.
   */
  finishRequested?(tick: GuardTick, result: TickResult): boolean;

  /**
   * The model is trying to finish, before any family's `exitAttempt`: a family that produces
   * evidence itself (`<CommandGate>` runs a check) does it here, so that every family's
   * `exitAttempt` (called after every family's `beforeExitAttempt`) judges the same evidence.
   * May be async; its answer is in the family's own state, not returned.
   */
  beforeExitAttempt?(tick: GuardTick): void | Promise<void>;

  /** The model replied without tool calls (or a family said it asked to finish): it is trying to finish. May refuse. */
  exitAttempt?(tick: GuardTick): ExitVerdict;

  /**
   * `maxTicks` was reached. What is still engaged (each one a phrase such as
   * `gate "verification" is active (Verify your changes)`), which ends the run `blocked`.
   */
  engagedAtMaxTicks?(): string[];

  /** Fields the family adds to every `RunResult` (gates and knobs, checkpoints, todos, ...). */
  report?(): RunReport;
}

/** What a guard family needs from its session. Built once per session. */
export interface GuardHost {
  readonly sessionId: string;
  readonly options: Readonly<SessionOptions>;
  readonly registry: DeclarationRegistry;
  /** Extra checks that throw in development (see `SessionOptions.devChecks`). */
  readonly devChecks: boolean;
  state(): SessionState;
  update(recipe: (draft: SessionState) => void): void;
  /**
   * Replaces a family's whole slice of `state.guards` with a value that is already deeply frozen
   * (its bookkeeping, rebuilt whole each tick): what `update` would do, without drafting.
   */
  assign<K extends keyof GuardStates>(key: K, value: GuardStates[K]): void;
  emit(event: AgateEvent): void;
  /** Emits a `warning` event once per key over the session's life. */
  warnOnce(key: string, code: string, message: string): void;
  /** `options.store`, or the default file store (created on first use). */
  store(): SessionStore;
  /** The current state as a snapshot (what `session.snapshot()` returns). */
  snapshot(label?: string, id?: string): SessionSnapshot<SessionState>;
  /**
   * A new session on `element` (a sub-agent's child run). Given to families by the host so
   * that a family that runs sessions does not import the session it is part of.
   */
  createSession(element: ReactNode, options: SessionOptions): ChildSession;
}

/** A session a family started (`GuardHost.createSession`), as the family uses it. */
export interface ChildSession {
  readonly state: SessionState;
  run(options?: RunOptions): Promise<RunResult>;
  dispose(): void;
}

/** A family is registered as a factory: each session gets its own instance. */
export type GuardFactory<G extends Guard = Guard> = (host: GuardHost) => G;

export interface RunStartInfo {
  resumedByPerson: boolean;
}

export interface GuardContribution {
  tools?: CompiledTool[];
  ephemeral?: EphemeralBlock[];
  /**
   * The family's fields of the compiled context (`ContextReports`, which the family augments),
   * given whole on every render (the gates family: `knobs` and `gates`).
   */
  reports?: Partial<ContextReports>;
}

/** The tick being run, as every hook after render sees it. */
export interface GuardTick {
  /** 1-based over the session's life; the tick being run (not yet committed). */
  readonly tick: number;
  readonly context: CompiledContext;
  readonly signal: AbortSignal;
  /** Finished ticks of this session, oldest first (capped). */
  readonly recentTicks: readonly TickResult[];
}

export interface TickEndInfo {
  /** Wall time of this tick, from its start to its commit. */
  elapsedMs: number;
  /** `callSignature` of each of the tick's calls, in order (computed on first read, once per tick). */
  readonly signatures: readonly string[];
  /**
   * A call of the tick asks to finish (a `finishTools` call, such as a valid `final_answer`, ran
   * without error): the exit is judged after this hook. A family that acts on a finish (a
   * checkpoint the agent may not end the run past) treats the tick as a reply without tool calls.
   */
  readonly finishing: boolean;
}

export type BeforeModelVerdict =
  | { kind: 'proceed' }
  | { kind: 'end'; status: RunStatus; reason: string };

export type ToolCallVerdict =
  | { kind: 'allow' }
  | { kind: 'refuse'; message: string; by?: string }
  /** Not executed and not answered now; `reason` goes into the `tool:held` event. */
  | { kind: 'hold'; reason: string };

/** A held call given back to the runtime (`Guard.releaseHeldCalls`). */
export interface ReleasedCall {
  call: TickToolCall;
  /** The result the model sees instead of running the call (a denial); absent: run it. */
  answer?: { output: JsonValue; isError: boolean };
}

/** A new tool result for the model (JSON), from `afterToolCall`. */
export interface ToolCallReplacement {
  output: JsonValue;
}

/** One tool call as it happened (defined with the runtime that makes it). */
export type { ToolCallOutcome } from '../runtime/tool-outcome.js';

export type ExitVerdict =
  | { kind: 'allow' }
  | {
      /** The loop goes on; `notice` is shown to the model on the next tick. */
      kind: 'refuse';
      /** What refused (gate names, `todos`, `phase-gates`), for the `exit:blocked` event. */
      names: string[];
      reasons: string[];
      notice: string;
    }
  | {
      /** The refusal ends the run `blocked` (its bound is reached, or only a person can help). */
      kind: 'end';
      names: string[];
      reasons: string[];
      reason: string;
    };
