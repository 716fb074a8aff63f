import type { KeyObject } from 'node:crypto';
import type { LanguageModel } from 'ai';
import type { ReactNode } from 'react';
import type { CheckpointLedgerEntry, ToolCallLedgerEntry } from '../approvals/ledger-types.js';
import type { JsonValue } from '../ground/json.js';
import {
  type ContinueGateEvaluator,
  type FamilyApi,
  familyApi,
} from '../guard-seam/built-in-family-api.js';
// The built-in families' fields of SessionOptions, SessionState, RunResult, events and <Tool>
// props: imported here, where every program that runs a session (and its .d.ts) passes.
import '../guard-seam/built-in-family-types.js';
import { createSnapshot, type SessionSnapshot } from '../persistence/snapshot.js';
import type { CompiledContext } from '../renderer/compiled-context.js';
import type { ChangedBy, SessionState } from '../state/session-state.js';
import { SessionStateError } from '../state/session-state-error.js';
import type { TickRecord } from '../tick-log/tick-record.js';
import { neverAbortedSignal } from './abort.js';
import type { DeclarationRegistry } from './declarations.js';
import type { EventListener, SubscribeOptions } from './events.js';
import type { SessionResources } from './resources.js';
import { runSession } from './run-session.js';
import { SessionCore } from './session-core.js';
import type { RunOptions, RunResult, SessionOptions, TickOutcome } from './session-options.js';
import { renderContext } from './tick/render-context.js';
import { runAtomicTick } from './tick/run-tick.js';

export type { RunOptions, RunResult, SessionOptions, TickOutcome } from './session-options.js';

/**
 * A live agent: one React root re-rendered every tick, the immutable session state, and the
 * tick loop. `run()` drives ticks until the model finishes (and every guard lets it). The class
 * only wires the parts: what they share is a `SessionCore` (runtime/session-core.ts), one tick
 * is the stages in runtime/tick/ (render, the model call, the tool calls, the tick's end, the
 * exit attempt), a run is runtime/run-session.ts. Guards plug in through the guard seam
 * (guard-seam/), and no part here names a guard family.
 */
export class Session implements FamilyApi {
  /** The session's id: its snapshots' and store records' key. */
  readonly id: string;
  private readonly core: SessionCore;
  /** The families' implementations of the methods below (guard-seam/built-in-family-api.ts). */
  private readonly families: FamilyApi;

  constructor(element: ReactNode, options: SessionOptions) {
    this.core = new SessionCore(element, options, this, createSession);
    this.id = this.core.id;
    this.families = familyApi(this.core.families);
  }

  // The families' methods are arrow-function fields, as the instance's own properties were
  // before: `const { approve } = session` still works, with no `this` to lose.

  /** Host or supervisor changes a knob (validated like the model's set_knob, minus permissions). */
  readonly setKnob = (name: string, value: JsonValue, by?: Exclude<ChangedBy, 'model'>): void =>
    this.families.setKnob(name, value, by);

  /** Clears a gate as the host (evidence checked outside the model) or a supervisor. */
  readonly clearGate = (name: string, by?: 'host' | 'supervisor'): void =>
    this.families.clearGate(name, by);

  /**
   * A supervisor approves a pending `<Checkpoint>` (or, by path, one inside a running
   * sub-agent); the next `run()` goes on past it.
   */
  readonly approve = (
    id: string,
    decision: { by: string; note?: string; privateKey?: string | KeyObject },
  ): CheckpointLedgerEntry => this.families.approve(id, decision);

  /** A supervisor rejects a pending `<Checkpoint>`: unlocked again, the feedback shown to the model. */
  readonly reject = (
    id: string,
    decision: { by: string; feedback: string; privateKey?: string | KeyObject },
  ): CheckpointLedgerEntry => this.families.reject(id, decision);

  /**
   * A person approves a tool call held for approval (`needsApproval`; its id is the tool call's
   * id): the next `run()` executes it before calling the model.
   */
  readonly approveToolCall = (
    id: string,
    decision: { by: string; reason?: string; privateKey?: string | KeyObject },
  ): ToolCallLedgerEntry => this.families.approveToolCall(id, decision);

  /** A person denies a held tool call: the next `run()` answers it with the denial (who, why). */
  readonly denyToolCall = (
    id: string,
    decision: { by: string; reason: string; privateKey?: string | KeyObject },
  ): ToolCallLedgerEntry => this.families.denyToolCall(id, decision);

  /** The ContinueGate's evaluator (history and stats for monitoring), once one is rendered. */
  get continueEvaluator(): ContinueGateEvaluator | undefined {
    return this.families.continueEvaluator;
  }

  /** The session's state: immutable, replaced as the run goes (never change it in place). */
  get state(): SessionState {
    return this.core.state;
  }

  /**
   * The store revision the session knows: the `revision` of the snapshot it was created from,
   * then of its own saves (a claimed run's start and end). Undefined when it was not loaded
   * from a store that keeps revisions. Save over it: `store.save(session.snapshot(),
   * { expectedRevision: session.revision })`.
   */
  get revision(): number | undefined {
    return this.core.storedRevision;
  }

  /** The context compiled by the latest render (undefined before the first). */
  get context(): CompiledContext | undefined {
    return this.core.lastContext;
  }

  /** The model the session calls. */
  get model(): LanguageModel {
    return this.core.options.model;
  }

  /** Every event, or only `types` (a `model:delta` subscription makes `'auto'` stream). */
  subscribe(listener: EventListener, options?: SubscribeOptions): () => void {
    return this.core.events.subscribe(listener, options);
  }

  /** The tick log's records, oldest first (empty unless `tickLog` is on). */
  ticks(): TickRecord[] {
    return this.core.tickLog?.ticks() ?? [];
  }

  /** Renders the tree with the current state and compiles it; no model call. */
  render(): CompiledContext {
    return renderContext(this.core);
  }

  /** Runs ticks until the model finishes, a guard ends the run, or `maxTicks` is reached. */
  run<O = unknown>(options: RunOptions = {}): Promise<RunResult<O>> {
    return runSession<O>(this.core, options);
  }

  /** One tick on its own (render, model call, tools, guards). Most callers want `run()`. */
  async tick(options: { signal?: AbortSignal } = {}): Promise<TickOutcome> {
    const { core } = this;
    core.assertUsable();
    if (core.running)
      throw new SessionStateError('A run is in progress; tick() cannot interleave.');
    core.running = true;
    try {
      return await runAtomicTick(core, options.signal ?? neverAbortedSignal());
    } finally {
      core.running = false;
    }
  }

  /** Unmounts the tree (running effects' cleanups). The session cannot be used afterwards. */
  dispose(): void {
    const { core } = this;
    if (core.disposed) return;
    core.root.unmount();
    core.disposed = true;
    void core.closeResources();
  }

  /**
   * Closes what components opened (MCP connections) without ending the session: for callers
   * of `tick()`, since `run()` closes them itself when it ends. The next tick opens them again.
   */
  async close(): Promise<void> {
    if (this.core.running) {
      throw new SessionStateError(
        'close() was called while a run is in progress; abort the run (its end closes them) or await it.',
      );
    }
    await this.core.closeResources();
  }

  /**
   * Where components keep what they open for a run (`<McpServer>`'s connection).
   * @internal Left out of the published types: only the core's own components use it.
   */
  get resources(): SessionResources {
    return this.core.resources;
  }

  /**
   * The session as plain JSON. `createSession(element, { ...options, snapshot })` continues
   * from it, in this process or another.
   */
  snapshot(label?: string, id: string = this.id): SessionSnapshot<SessionState> {
    return this.core.snapshot(label, id);
  }

  /**
   * Saves the session to its store (`options.store`, else the default file store) over the
   * revision it knows (`revision`), and then knows the next one: the way to save a session
   * between or during runs (at every tick end, say) without breaking its run's claim. Throws
   * `StaleSessionError` when another process saved it in between (nothing is written).
   */
  async save(label?: string): Promise<void> {
    const { core } = this;
    core.assertUsable();
    // Shares the frozen state with the snapshot (no copy): a save costs what the tick added.
    await core.saveToStore(createSnapshot(this.id, core.state, label, { shareFrozen: true }));
  }

  /**
   * Declarations registry for the hooks and components that declare guards.
   * @internal Left out of the published types: families read it as `GuardHost.registry`.
   */
  get declarations(): DeclarationRegistry {
    return this.core.registry;
  }
}

/** Creates a session for an agent tree; call `.run()` to drive it. */
export function createSession(element: ReactNode, options: SessionOptions): Session {
  return new Session(element, options);
}
