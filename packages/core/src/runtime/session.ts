import type { LanguageModel } from 'ai';
import { produce } from 'immer';
import { createElement, type ReactNode } from 'react';
import { checkContinue } from '../gates/continue/before-model-call.js';
import { ContinueGateEvaluator } from '../gates/continue/evaluator.js';
import type { ContinueGateProps } from '../gates/continue/props.js';
import { detectRework } from '../gates/continue/rework.js';
import { resolveContinueConfig } from '../gates/continue/types.js';
import { createSetKnobTool, SET_KNOB_TOOL } from '../gates/set-knob-tool.js';
import { InvalidSessionIdError } from '../persistence/errors.js';
import { createFileStore } from '../persistence/file-store.js';
import { restoreSnapshotState } from '../persistence/restore.js';
import { createSnapshot, isValidSessionId, type SessionSnapshot } from '../persistence/snapshot.js';
import type { SessionStore } from '../persistence/store.js';
import { compileHostTree } from '../renderer/compile.js';
import {
  COMPILED_CONTEXT,
  type CompiledContext,
  type CompiledTool,
} from '../renderer/compiled-context.js';
import { type AgateRoot, createAgateRoot } from '../renderer/root.js';
import type { JsonValue } from '../state/json.js';
import {
  type ChangedBy,
  createInitialState,
  type GateStatus,
  type RunStatus,
  type SessionState,
} from '../state/session-state.js';
import { callSignature, commitTick, tickMessages } from '../state/update.js';
import { DeclarationRegistry } from './declarations.js';
import { AgateError, errorMessage, KnobDeclarationError, SessionStateError } from './errors.js';
import { type AgateEvent, type EventListener, EventLog } from './events.js';
import { GateControl } from './gate-control.js';
import { callModel, type ModelSettings } from './model-call.js';
import { SessionProvider } from './session-context.js';
import type { TickResult, TickToolResult } from './tick-result.js';
import { executeToolCall } from './tool-execution.js';

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

export type TickOutcome = { done: false } | { done: true; status: RunStatus; reason?: string };

const DEFAULT_MAX_TICKS = 25;
const RECENT_TICKS_CAP = 50;
/** Leaves room for the `.tick-N` suffix of checkpoint ids within the 128-character file limit. */
const MAX_SESSION_ID_LENGTH = 100;

/**
 * A live agent: one React root re-rendered every tick, the immutable session state, and the
 * tick loop. `run()` drives ticks until the model finishes (and every gate lets it).
 */
export class Session {
  readonly id: string;
  private currentState: SessionState;
  private readonly root: AgateRoot;
  private readonly registry = new DeclarationRegistry();
  private readonly events: EventLog;
  private readonly recentTicks: TickResult[] = [];
  private readonly warned = new Set<string>();
  private readonly gates: GateControl;
  private running = false;
  private disposed = false;
  private lastContext: CompiledContext | undefined;

  constructor(
    private readonly element: ReactNode,
    private readonly options: SessionOptions,
  ) {
    const seeded =
      options.snapshot !== undefined
        ? restoreSnapshotState<SessionState>(options.snapshot)
        : { ...createInitialState(options.id ?? crypto.randomUUID()), ...options.state };
    this.currentState = produce(seeded, () => {});
    this.id = this.currentState.id;
    // Ids name snapshot files (with a `.tick-N` suffix for checkpoints): fail here, not at the
    // first checkpoint many ticks later.
    if (!isValidSessionId(this.id) || this.id.length > MAX_SESSION_ID_LENGTH) {
      throw new InvalidSessionIdError(this.id, MAX_SESSION_ID_LENGTH);
    }
    this.root = createAgateRoot();
    this.events = new EventLog(options.maxEvents ?? 1_000);
    this.gates = new GateControl(this.registry, {
      state: () => this.currentState,
      update: (recipe) => this.update(recipe),
      emit: (event) => this.emit(event),
      warnOnce: (key, code, message) => this.warnOnce(key, code, message),
      devChecks: options.devChecks ?? process.env.NODE_ENV !== 'production',
    });
    if (options.onEvent) this.events.subscribe(options.onEvent);
  }

  get state(): SessionState {
    return this.currentState;
  }

  /** The context compiled by the latest render (undefined before the first). */
  get context(): CompiledContext | undefined {
    return this.lastContext;
  }

  get model(): LanguageModel {
    return this.options.model;
  }

  subscribe(listener: EventListener): () => void {
    return this.events.subscribe(listener);
  }

  /** Renders the tree with the current state and compiles it; no model call. */
  render(): CompiledContext {
    this.assertUsable();
    const element = createElement(
      SessionProvider,
      { value: { session: this, state: this.currentState, registry: this.registry } },
      this.element,
    );
    this.root.render(element);
    const tree = compileHostTree(this.root.container);
    const knobs = this.gates.knobInfos();
    const gates = this.gates.gateInfos();
    const tools: CompiledTool[] = [...tree.tools];
    if (knobs.length > 0 || gates.length > 0) {
      if (tools.some((t) => t.name === SET_KNOB_TOOL)) {
        throw new KnobDeclarationError(
          `A <Tool> is named "${SET_KNOB_TOOL}", which Agate reserves for knobs and gates. Rename the tool.`,
        );
      }
      tools.push(
        createSetKnobTool(knobs, gates, (input) => this.gates.applyModelKnobChange(input)),
      );
    }
    const ephemeral = [
      ...tree.ephemeral,
      // An active gate whose component unmounted has no element; the runtime shows it.
      ...gates
        .filter((g) => !g.rendered && g.state === 'active')
        .map((g) => ({ text: g.instructions, source: `gate:${g.name}` })),
      ...this.currentState.notices.map((text) => ({ text, source: 'runtime' })),
    ];
    const context: CompiledContext = {
      system: tree.system,
      messages: tree.messages,
      tools,
      ephemeral,
      knobs,
      gates,
    };
    Object.defineProperty(context, COMPILED_CONTEXT, { value: true });
    this.gates.checkDeclarations(context);
    this.lastContext = context;
    return context;
  }

  /** Runs ticks until the model finishes, a gate ends the run, or `maxTicks` is reached. */
  async run(options: RunOptions = {}): Promise<RunResult> {
    this.assertUsable();
    if (this.running) {
      throw new SessionStateError(
        'run() is already in progress on this session; await it (or abort it) before starting another.',
      );
    }
    this.running = true;
    const maxTicks = options.maxTicks ?? this.options.maxTicks ?? DEFAULT_MAX_TICKS;
    const signal = options.signal ?? this.options.signal ?? new AbortController().signal;
    const startTick = this.currentState.tick;
    // After a pause or stop, calling run() is a person deciding to go on: the ContinueGate's
    // step count (and the rework ratio over it) starts again; budgets and tick numbers carry over.
    const resumedByPerson =
      this.currentState.status === 'paused' || this.currentState.status === 'stopped';
    this.update((draft) => {
      draft.status = 'running';
      delete draft.reason;
      if (resumedByPerson) {
        draft.progress.stepNumber = 0;
        draft.progress.lastCheckpointStep = 0;
        draft.progress.reworkCount = 0;
      }
    });
    let end: { status: RunStatus; reason?: string; error?: Error } | undefined;
    try {
      // Inside the try: a throwing listener must not leave the session marked as running.
      this.emit({ type: 'run:start', sessionId: this.id, tick: startTick });
      for (let i = 0; i < maxTicks && end === undefined; i++) {
        signal.throwIfAborted();
        const outcome = await this.tickWith(signal);
        if (outcome.done) end = { status: outcome.status, reason: outcome.reason };
      }
      end ??= this.gates.endAtMaxTicks(maxTicks);
    } catch (error) {
      if (signal.aborted) {
        end = {
          status: 'aborted',
          reason: `The run was aborted${signal.reason !== undefined ? `: ${errorMessage(signal.reason)}` : ''}. Call run() again to resume from the last completed tick.`,
        };
      } else {
        const err = error instanceof Error ? error : new AgateError(errorMessage(error));
        end = { status: 'error', reason: err.message, error: err };
      }
    } finally {
      this.running = false;
    }

    const { status, error } = end;
    let { reason } = end;
    this.update((draft) => {
      draft.status = status;
      if (reason !== undefined) draft.reason = reason;
    });
    if (status === 'paused' && this.options.store !== undefined) {
      // A paused run waits for a person, possibly in another process: keep it where they look.
      try {
        await this.options.store.save(this.snapshot('paused'));
      } catch (saveError) {
        // Still paused here (run() resumes it), but a person looking in the store would not find it.
        const problem = `Saving the paused session to the store failed: ${errorMessage(saveError)}`;
        this.emit({
          type: 'warning',
          tick: this.currentState.tick,
          code: 'pause-save-failed',
          message: problem,
        });
        reason = `${reason ?? ''} ${problem}`.trim();
        const updated = reason;
        this.update((draft) => {
          draft.reason = updated;
        });
      }
    }
    this.emit({
      type: 'run:end',
      status,
      ...(reason !== undefined ? { reason } : {}),
      ticks: this.currentState.tick - startTick,
    });
    return {
      status,
      ...(reason !== undefined ? { reason } : {}),
      ticks: this.currentState.tick - startTick,
      totalTicks: this.currentState.tick,
      text: this.currentState.text,
      timeline: this.currentState.timeline,
      gates: Object.fromEntries(this.gates.gateInfos().map((g) => [g.name, g.state])),
      knobs: Object.fromEntries(this.gates.knobInfos().map((k) => [k.name, k.value])),
      usage: this.currentState.usage,
      events: this.events.recent(),
      ...(error !== undefined ? { error } : {}),
    };
  }

  /** One tick on its own (render, model call, tools, gates). Most callers want `run()`. */
  async tick(options: { signal?: AbortSignal } = {}): Promise<TickOutcome> {
    this.assertUsable();
    if (this.running)
      throw new SessionStateError('A run is in progress; tick() cannot interleave.');
    this.running = true;
    try {
      return await this.tickWith(options.signal ?? new AbortController().signal);
    } finally {
      this.running = false;
    }
  }

  /** Host or supervisor changes a knob (validated like the model's set_knob, minus permissions). */
  setKnob(name: string, value: JsonValue, by: Exclude<ChangedBy, 'model'> = 'host'): void {
    this.gates.setKnob(name, value, by);
  }

  /** Clears a gate as the host (evidence checked outside the model) or a supervisor. */
  clearGate(name: string, by: 'host' | 'supervisor' = 'host'): void {
    this.gates.clearGate(name, by);
  }

  /** Unmounts the tree (running effects' cleanups). The session cannot be used afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.root.unmount();
    this.disposed = true;
  }

  // ---- internals -------------------------------------------------------------------------

  private async tickWith(signal: AbortSignal): Promise<TickOutcome> {
    const before = this.currentState;
    try {
      return await this.runTick(signal);
    } catch (error) {
      // A tick is atomic: an abort or failure leaves the state of the last completed tick.
      if (signal.aborted) this.currentState = before;
      throw error;
    }
  }

  private async runTick(signal: AbortSignal): Promise<TickOutcome> {
    const tickNo = this.currentState.tick + 1;
    const startedAt = performance.now();
    this.emit({ type: 'tick:start', tick: tickNo });
    const context = this.render();

    const continueGate = this.registry.continueGate();
    if (continueGate !== undefined) {
      const props = continueGate.config as ContinueGateProps;
      const outcome = await checkContinue({
        props,
        evaluator: this.evaluatorFor(props),
        state: this.currentState,
        recentTicks: this.recentTicks,
        tick: tickNo,
        signal,
        emit: (event) => this.emit(event),
        saveCheckpoint: (step) => this.saveCheckpoint(step),
      });
      if (outcome.kind === 'end')
        return { done: true, status: outcome.status, reason: outcome.reason };
    }

    this.emit({
      type: 'model:request',
      tick: tickNo,
      messages: context.messages.length,
      tools: context.tools.map((t) => t.name),
      ephemeral: context.ephemeral.length,
    });
    const turn = await callModel({
      model: this.options.model,
      context,
      signal,
      ...(this.options.streaming !== undefined ? { streaming: this.options.streaming } : {}),
      ...(this.options.modelSettings ? { settings: this.options.modelSettings } : {}),
      onDelta: (kind, delta) => this.emit({ type: 'model:delta', tick: tickNo, kind, delta }),
    });
    this.emit({
      type: 'model:response',
      tick: tickNo,
      text: turn.text,
      toolCalls: turn.toolCalls,
      finishReason: turn.finishReason,
      usage: turn.usage,
    });

    // Calls run one at a time, in the model's order: a set_knob earlier in the tick is
    // visible to later calls, and results are deterministic.
    const tools = new Map(context.tools.map((t) => [t.name, t]));
    const toolResults: TickToolResult[] = [];
    for (const call of turn.toolCalls) {
      this.emit({ type: 'tool:call', tick: tickNo, ...call });
      const result = await executeToolCall(call, tools, {
        toolCallId: call.toolCallId,
        abortSignal: signal,
        tick: tickNo,
        messages: context.messages,
      });
      signal.throwIfAborted();
      this.emit({ type: 'tool:result', tick: tickNo, ...result });
      toolResults.push(result);
    }

    const result: TickResult = {
      tick: tickNo,
      toolCalls: turn.toolCalls,
      toolResults,
      text: turn.text,
      finishReason: turn.finishReason,
      usage: turn.usage,
    };
    // Computed once: the rework check and the committed history both need them.
    const signatures = result.toolCalls.map((c) => callSignature(c.toolName, c.input));
    const rework = this.isRework(result, signatures);
    let dropped = 0;
    this.update((draft) => {
      dropped = commitTick(draft, result, tickMessages(result, turn.reasoning), {
        baseTimeline: this.currentState.timeline,
        baseProgress: this.currentState.progress,
        maxTimelineMessages: this.options.maxTimelineMessages ?? 5_000,
        elapsedMs: performance.now() - startedAt,
        rework,
        signatures,
      });
    });
    if (dropped > 0) this.emit({ type: 'timeline:trimmed', tick: tickNo, dropped });
    this.recentTicks.push(result);
    if (this.recentTicks.length > RECENT_TICKS_CAP) this.recentTicks.shift();

    this.gates.applyTickEnd(result, this.recentTicks);
    this.emit({ type: 'tick:end', tick: tickNo, result });

    if (turn.toolCalls.length > 0) return { done: false };
    return this.gates.attemptExit(tickNo);
  }

  private isRework(result: TickResult, signatures: readonly string[]): boolean {
    const props = this.registry.continueGate()?.config as ContinueGateProps | undefined;
    return detectRework(
      result,
      this.currentState.progress.callSignatures,
      props?.isRework,
      signatures,
    );
  }

  /** The ContinueGate's evaluator (history and stats for monitoring), once one is rendered. */
  get continueEvaluator(): ContinueGateEvaluator | undefined {
    return this.evaluator?.instance;
  }

  private evaluator: { key: string; instance: ContinueGateEvaluator } | undefined;

  private evaluatorFor(props: ContinueGateProps): ContinueGateEvaluator {
    const config = resolveContinueConfig(props);
    const key = JSON.stringify(config);
    if (this.evaluator?.key !== key) {
      // A changed config starts a fresh history: stats mixing two configs would mislead.
      this.evaluator = { key, instance: new ContinueGateEvaluator(config) };
    }
    return this.evaluator.instance;
  }

  private async saveCheckpoint(step: number): Promise<string> {
    // The snapshot records the checkpoint (so a session restored from it does not checkpoint
    // again at once), but the live state takes it only once the save succeeded: a failed save
    // must not count as a restore point. Ids use the tick, which never repeats in a session's
    // life; the step number starts again after every resume and would overwrite older ones.
    const next = produce(this.currentState, (draft) => {
      draft.progress.lastCheckpointStep = step;
    });
    const tick = next.tick;
    const snapshot = createSnapshot(
      `${this.id}.tick-${tick}`,
      next,
      `checkpoint at step ${step}, tick ${tick}`,
    );
    this.store ??= this.options.store ?? createFileStore();
    await this.store.save(snapshot);
    // Applied to the current state, not `next`: a host may have set a knob during the save.
    this.update((draft) => {
      draft.progress.lastCheckpointStep = step;
    });
    return snapshot.id;
  }

  private store: SessionStore | undefined;

  /**
   * The session as plain JSON. `createSession(element, { ...options, snapshot })` continues
   * from it, in this process or another.
   */
  snapshot(label?: string, id: string = this.id): SessionSnapshot<SessionState> {
    return createSnapshot(id, this.currentState, label);
  }

  private warnOnce(key: string, code: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.emit({ type: 'warning', tick: this.currentState.tick, code, message });
  }

  private update(recipe: (draft: SessionState) => void): void {
    this.currentState = produce(this.currentState, recipe);
  }

  /** Declarations registry for hooks (`useKnob`, `useGate`, `<ContinueGate>`). */
  get declarations(): DeclarationRegistry {
    return this.registry;
  }

  private emit(event: AgateEvent): void {
    this.events.emit(event);
  }

  private assertUsable(): void {
    if (this.disposed) throw new SessionStateError('This session was disposed; create a new one.');
  }
}

/** Creates a session for an agent tree; call `.run()` to drive it. */
export function createSession(element: ReactNode, options: SessionOptions): Session {
  return new Session(element, options);
}
