import type { LanguageModel } from 'ai';
import { produce } from 'immer';
import { createElement, type ReactNode } from 'react';
import { checkContinue } from '../gates/continue/before-model-call.js';
import { ContinueGateEvaluator } from '../gates/continue/evaluator.js';
import type { ContinueGateProps } from '../gates/continue/props.js';
import { detectRework } from '../gates/continue/rework.js';
import { resolveContinueConfig } from '../gates/continue/types.js';
import { describeMissingTools, findMissingTools } from '../gates/deadlock.js';
import { decideExit } from '../gates/exit.js';
import type { KnobInfo } from '../gates/knob-types.js';
import { checkGateValueFromModel, checkKnobValue } from '../gates/knob-values.js';
import { createSetKnobTool, SET_KNOB_TOOL, type SetKnobInput } from '../gates/set-knob-tool.js';
import { type GateTransition, gateTransitionsAtTickEnd } from '../gates/tick-end.js';
import { DEFAULT_MAX_BLOCKS, type GateInfo } from '../gates/types.js';
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
import { commitTick, tickMessages } from '../state/update.js';
import { DeclarationRegistry, type GateDeclaration } from './declarations.js';
import {
  AgateError,
  errorMessage,
  GateDeadlockError,
  KnobDeclarationError,
  SessionStateError,
} from './errors.js';
import { type AgateEvent, type EventListener, EventLog } from './events.js';
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
    const knobs = this.knobInfos();
    const gates = this.gateInfos();
    const tools: CompiledTool[] = [...tree.tools];
    if (knobs.length > 0 || gates.length > 0) {
      if (tools.some((t) => t.name === SET_KNOB_TOOL)) {
        throw new KnobDeclarationError(
          `A <Tool> is named "${SET_KNOB_TOOL}", which Agate reserves for knobs and gates. Rename the tool.`,
        );
      }
      tools.push(createSetKnobTool(knobs, gates, (input) => this.applyModelKnobChange(input)));
    }
    const ephemeral = [
      ...tree.ephemeral,
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
    this.checkDeclarations(context);
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
      end ??= this.endAtMaxTicks(maxTicks);
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
      gates: Object.fromEntries(this.gateInfos().map((g) => [g.name, g.state])),
      knobs: Object.fromEntries(this.knobInfos().map((k) => [k.name, k.value])),
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
    const gate = this.gateInfos().find((g) => g.name === name);
    if (gate) {
      if (value !== 'inactive' && value !== 'active' && value !== 'deferred') {
        throw new KnobDeclarationError(
          `Invalid value ${JSON.stringify(value)} for gate "${name}": use "inactive", "active" or "deferred".`,
        );
      }
      // Clearing goes through clearGate so a supervisor-only gate cannot be cleared by the host.
      if (value === 'inactive') {
        this.clearGate(name, by === 'supervisor' ? 'supervisor' : 'host');
        return;
      }
      this.changeGate(name, value, by, `set by the ${by}`);
      return;
    }
    const knob = this.knobInfos().find((k) => k.name === name);
    if (!knob) throw new KnobDeclarationError(this.unknownKnobMessage(name));
    const checked = checkKnobValue(knob, value);
    if (!checked.ok) throw new KnobDeclarationError(checked.message);
    this.changeKnob(knob, checked.value, by);
  }

  /** Clears a gate as the host (evidence checked outside the model) or a supervisor. */
  clearGate(name: string, by: 'host' | 'supervisor' = 'host'): void {
    const gate = this.gateInfos().find((g) => g.name === name);
    if (!gate) {
      throw new KnobDeclarationError(
        `No gate named "${name}" is rendered. Rendered gates: ${
          this.gateInfos()
            .map((g) => g.name)
            .join(', ') || 'none'
        }.`,
      );
    }
    if (gate.clearableBy === 'supervisor' && by !== 'supervisor') {
      throw new SessionStateError(
        `Gate "${name}" can only be cleared by a supervisor: call session.clearGate("${name}", "supervisor").`,
      );
    }
    this.changeGate(name, 'inactive', by, `cleared by the ${by}`);
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
    const rework = this.isRework(result);
    let dropped = 0;
    this.update((draft) => {
      dropped = commitTick(draft, result, tickMessages(result, turn.reasoning), {
        baseTimeline: this.currentState.timeline,
        baseProgress: this.currentState.progress,
        maxTimelineMessages: this.options.maxTimelineMessages ?? 5_000,
        elapsedMs: performance.now() - startedAt,
        rework,
      });
    });
    if (dropped > 0) this.emit({ type: 'timeline:trimmed', tick: tickNo, dropped });
    this.recentTicks.push(result);
    if (this.recentTicks.length > RECENT_TICKS_CAP) this.recentTicks.shift();

    this.applyTickEndGates(result);
    this.emit({ type: 'tick:end', tick: tickNo, result });

    if (turn.toolCalls.length > 0) return { done: false };
    return this.attemptExit(tickNo);
  }

  /** The model replied without tool calls: it is trying to finish. Gates may refuse. */
  private attemptExit(tick: number): TickOutcome {
    this.emit({ type: 'exit:attempt', tick });
    const decision = decideExit(this.gateInfos());
    if (decision.kind === 'finish') return { done: true, status: 'completed' };

    this.update((draft) => {
      for (const g of decision.gates) {
        const record = draft.gates[g.name] ?? { state: 'active', blocks: 0 };
        record.state = 'active';
        record.blocks = g.blocks;
        if (g.wasDeferred) {
          record.changedBy = 'runtime';
          record.changedAtTick = tick;
        }
        draft.gates[g.name] = record;
      }
      if (decision.kind === 'refuse') draft.notices = [decision.notice];
    });
    for (const g of decision.gates) {
      if (g.wasDeferred) {
        this.emit({
          type: 'gate:activated',
          tick,
          gate: g.name,
          from: 'deferred',
          by: 'runtime',
          reason: 'an attempt to finish un-deferred it',
        });
      }
    }
    this.emit({
      type: 'exit:blocked',
      tick,
      gates: decision.gates.map((g) => g.name),
      reasons: decision.reasons,
    });
    if (decision.kind === 'end-blocked') {
      return { done: true, status: 'blocked', reason: decision.reason };
    }
    return { done: false };
  }

  private endAtMaxTicks(maxTicks: number): { status: RunStatus; reason: string } {
    const engaged = this.gateInfos().filter((g) => g.state !== 'inactive');
    if (engaged.length > 0) {
      return {
        status: 'blocked',
        reason: `maxTicks (${maxTicks}) reached while ${engaged
          .map((g) => `gate "${g.name}" is ${g.state} (${g.description})`)
          .join('; ')}. The agent did not finish; it is not a success.`,
      };
    }
    return {
      status: 'max-ticks',
      reason: `maxTicks (${maxTicks}) reached before the model finished. Call run() again to continue.`,
    };
  }

  private applyTickEndGates(result: TickResult): void {
    const declarations = this.registry.gates();
    // A throwing predicate surfaces as a GatePredicateError naming the gate and the predicate;
    // nothing is applied, so the gates stay as they were before this tick end.
    const transitions: GateTransition[] = gateTransitionsAtTickEnd(
      declarations.map((d) => ({
        name: d.name,
        state: this.gateRecord(d).state,
        descriptor: d.descriptor,
      })),
      result,
      { ticks: [...this.recentTicks], timeline: this.currentState.timeline },
    );
    for (const t of transitions) this.changeGate(t.gate, t.to, t.by, t.reason);
  }

  private applyModelKnobChange(input: SetKnobInput): string {
    // set_knob runs inside the tick being executed, which is not committed yet.
    const tick = this.currentState.tick + 1;
    const gate = this.gateInfos().find((g) => g.name === input.name);
    if (gate) {
      const checked = checkGateValueFromModel(gate, input.value);
      if (!checked.ok) throw new AgateError(checked.message);
      if (checked.state === gate.state) return `Gate "${gate.name}" is already ${gate.state}.`;
      this.changeGate(gate.name, checked.state, 'model', 'set_knob', tick);
      return checked.state === 'inactive'
        ? `Gate "${gate.name}" cleared.`
        : checked.state === 'deferred'
          ? `Gate "${gate.name}" deferred. It still blocks finishing: an attempt to finish makes it active again.`
          : `Gate "${gate.name}" is now active.`;
    }
    const knob = this.knobInfos().find((k) => k.name === input.name);
    if (!knob) throw new AgateError(this.unknownKnobMessage(input.name));
    const checked = checkKnobValue(knob, input.value);
    if (!checked.ok) throw new AgateError(checked.message);
    this.changeKnob(knob, checked.value, 'model', tick);
    return `Knob "${knob.name}" set to ${JSON.stringify(checked.value)}.`;
  }

  private unknownKnobMessage(name: string): string {
    const names = [...this.gateInfos().map((g) => g.name), ...this.knobInfos().map((k) => k.name)];
    return `Unknown knob "${name}". Knobs and gates you can set: ${names.join(', ') || 'none'}.`;
  }

  private changeKnob(
    knob: KnobInfo,
    value: JsonValue,
    by: ChangedBy,
    tick: number = this.currentState.tick,
  ): void {
    const previous = knob.value;
    this.update((draft) => {
      draft.knobs[knob.name] = value;
    });
    this.emit({
      type: 'knob:changed',
      tick,
      knob: knob.name,
      value,
      previous,
      by,
    });
  }

  private changeGate(
    name: string,
    to: GateStatus,
    by: ChangedBy,
    reason: string,
    tick: number = this.currentState.tick,
  ): void {
    const declaration = this.registry.gates().find((d) => d.name === name);
    const from = declaration ? this.gateRecord(declaration).state : 'inactive';
    if (from === to) return;
    this.update((draft) => {
      const record = draft.gates[name] ?? { state: from, blocks: 0 };
      record.state = to;
      record.changedBy = by;
      record.changedAtTick = tick;
      if (to === 'inactive') record.blocks = 0;
      draft.gates[name] = record;
    });
    const type =
      to === 'inactive' ? 'gate:cleared' : to === 'deferred' ? 'gate:deferred' : 'gate:activated';
    this.emit({ type, tick, gate: name, from, by, reason });
  }

  private gateRecord(declaration: GateDeclaration) {
    return (
      this.currentState.gates[declaration.name] ?? {
        state: declaration.descriptor.initial ?? 'inactive',
        blocks: 0,
      }
    );
  }

  private gateInfos(): GateInfo[] {
    return this.registry.gates().map((d) => {
      const record = this.gateRecord(d);
      return {
        name: d.name,
        state: record.state,
        description: d.descriptor.description,
        instructions: d.descriptor.instructions,
        clearableBy: d.descriptor.clearableBy ?? 'model',
        blocks: record.blocks,
        maxBlocks: d.descriptor.maxBlocks ?? DEFAULT_MAX_BLOCKS,
        ...(record.changedBy !== undefined ? { changedBy: record.changedBy } : {}),
      };
    });
  }

  private knobInfos(): KnobInfo[] {
    return this.registry.knobs().map((d) => ({
      name: d.name,
      description: d.options.description,
      value: this.currentState.knobs[d.name] ?? d.options.initial,
      ...(d.options.options !== undefined ? { options: d.options.options } : {}),
      ...(d.options.schema !== undefined ? { schema: d.options.schema } : {}),
    }));
  }

  private isRework(result: TickResult): boolean {
    const props = this.registry.continueGate()?.config as ContinueGateProps | undefined;
    return detectRework(result, this.currentState.progress.callSignatures, props?.isRework);
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

  /** Reports declarations that can never work, instead of letting the run loop on them. */
  private checkDeclarations(context: CompiledContext): void {
    for (const name of this.registry.duplicates()) {
      this.warnOnce(
        `duplicate:${name}`,
        'duplicate-declaration',
        `"${name}" is declared by more than one mounted component; the first one mounted is used.`,
      );
    }
    const toolNames = new Set(context.tools.map((t) => t.name));
    const gates = this.registry.gates();
    for (const missing of findMissingTools(gates, toolNames)) {
      const message = describeMissingTools(missing);
      const engaged = context.gates.find((g) => g.name === missing.gate)?.state !== 'inactive';
      this.warnOnce(
        `deadlock:${missing.gate}:${missing.tools.join(',')}`,
        'gate-deadlock',
        message,
      );
      if (engaged && (this.options.devChecks ?? process.env.NODE_ENV !== 'production')) {
        throw new GateDeadlockError(message);
      }
    }
    for (const g of context.gates) {
      const d = gates.find((x) => x.name === g.name);
      if (g.clearableBy === 'host' && d?.descriptor.clearWhen === undefined) {
        this.warnOnce(
          `host-no-clear:${g.name}`,
          'gate-host-clear',
          `Gate "${g.name}" is clearableBy "host" but has no clearWhen: only session.clearGate("${g.name}") can clear it.`,
        );
      }
    }
    // Exit is decided over the gates rendered now; an engaged gate that left the tree is
    // said out loud, since it no longer holds the agent back.
    for (const [name, record] of Object.entries(this.currentState.gates)) {
      if (record.state !== 'inactive' && !context.gates.some((g) => g.name === name)) {
        this.warnOnce(
          `unmounted:${name}`,
          'gate-unmounted',
          `Gate "${name}" is ${record.state} but no longer rendered, so it does not block finishing. Its state is kept: rendering it again brings it back ${record.state}.`,
        );
      }
    }
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
