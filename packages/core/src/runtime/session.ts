import type { LanguageModel } from 'ai';
import { produce } from 'immer';
import { createElement, type ReactNode } from 'react';
import { ContextBudget } from '../context-budget/budget.js';
import { createGuards } from '../guard-seam/built-in-families.js';
import { type FamilyApi, familyApi, familyReport } from '../guard-seam/built-in-family-api.js';
import type {
  GuardHost,
  GuardTick,
  ReleasedCall,
  ToolCallOutcome,
} from '../guard-seam/guard-family.js';
import { type GuardSet, isThenable } from '../guard-seam/guard-set.js';
import { withInitialState } from '../guard-seam/initial-state.js';
// The built-in families' fields of SessionOptions, SessionState, RunResult, events and <Tool>
// props: imported here, where every program that runs a session (and its .d.ts) passes.
import '../guard-seam/built-in-family-types.js';
import { createFileStore } from '../persistence/file-store.js';
import { StaleSessionError } from '../persistence/persistence-errors.js';
import { restoreSnapshotState } from '../persistence/restore.js';
import type { SessionStore } from '../persistence/session-store.js';
import {
  assertValidSessionId,
  createSnapshot,
  type SessionSnapshot,
} from '../persistence/snapshot.js';
import { compileHostTree } from '../renderer/compile.js';
import {
  COMPILED_CONTEXT,
  type CompiledContext,
  type CompiledTool,
  type ContextReports,
} from '../renderer/compiled-context.js';
import { type AgateRoot, createAgateRoot } from '../renderer/root.js';
import type { RunStatus, SessionState } from '../state/session-state.js';
import { callSignature, commitTick, tickMessages, withToolResults } from '../state/update.js';
import { agentName } from '../telemetry/agent-name.js';
import { SessionTracing } from '../telemetry/session-tracing.js';
import { TickLog } from '../tick-log/tick-log.js';
import type { TickRecord } from '../tick-log/tick-record.js';
import { abortedReason, callModelUntilAborted } from './abort.js';
import { DeclarationRegistry } from './declarations.js';
import { modelStep, toolStep } from './durable-steps.js';
import { isCutOff, judgeReply } from './endings.js';
import { type AgateEvent, type EventListener, EventLog, type SubscribeOptions } from './events.js';
import { atTick, runFault, storeAtStep } from './fault.js';
import { InflightRecorder, type InflightTick, inflightOf, ToolSuspended } from './inflight.js';
import type { ModelTurn } from './model-call.js';
import { checkRunLimits, checkSessionOptions } from './option-checks.js';
import { RequestFormCache } from './request-messages.js';
import { SessionResources } from './resources.js';
import { claimIsDead, claimReason, parseClaim, SessionRunningElsewhereError } from './run-claim.js';
import { type AgateError, errorMessage, SessionStateError } from './runtime-errors.js';
import { SessionProvider } from './session-context.js';
import type { RunOptions, RunResult, SessionOptions, TickOutcome } from './session-options.js';
import { shouldStream } from './streaming.js';
import type { TickResult, TickToolCall, TickToolResult } from './tick-result.js';
import { runToolBatch } from './tool-batch.js';
import type { ToolExecuteContext } from './tool-context.js';
import { ToolIndexCache } from './tool-index.js';
import { runLimitedToolCall, type ToolLimits, toolLimits, truncationOf } from './tool-limits.js';
import { withUniqueCallIds } from './unique-call-ids.js';

export type { RunOptions, RunResult, SessionOptions, TickOutcome } from './session-options.js';

const DEFAULT_MAX_TICKS = 25;
const RECENT_TICKS_CAP = 50;
/** Work (ms of wall time) after which the tick loop lets the event loop turn (signals, I/O). */
const YIELD_AFTER_MS = 1;
const ALLOW = { kind: 'allow' } as const;

/**
 * Run ends that wait for a person, possibly in another process: the session is saved where
 * they look. `store`: only when `options.store` is given; `always`: the default store otherwise.
 */
const SAVE_AT_END: Partial<Record<RunStatus, 'store' | 'always'>> = {
  paused: 'store',
  'awaiting-approval': 'always',
};

/** The guard families' public methods (`approve`, `setKnob`, ...): see guards/session-api.ts. */
export interface Session extends FamilyApi {}

/**
 * A live agent: one React root re-rendered every tick, the immutable session state, and the
 * tick loop. `run()` drives ticks until the model finishes (and every guard lets it). What
 * guards a tick plugs in through the guard seam (`guards/`), and the loop names no guard family.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor defines FamilyApi's members on every instance.
export class Session {
  readonly id: string;
  private currentState: SessionState;
  private readonly root: AgateRoot;
  private readonly registry = new DeclarationRegistry();
  private readonly events: EventLog;
  private readonly recentTicks: TickResult[] = [];
  private readonly warned = new Set<string>();
  private readonly toolIndex = new ToolIndexCache();
  private readonly requestForms = new RequestFormCache();
  /** What components open for the run (MCP connections): see runtime/resources.ts. */
  private readonly openResources = new SessionResources();
  private readonly guards: GuardSet;
  private running = false;
  private disposed = false;
  /** When the event loop last turned, as far as the tick loop knows (see finishToolCall). */
  private lastYield = performance.now();
  /** An immediate is set to note the loop's next turn. */
  private turnNoted = false;
  private readonly noteTurn = (): void => {
    this.turnNoted = false;
    this.lastYield = performance.now();
  };
  private lastContext: CompiledContext | undefined;
  private sessionStore: SessionStore | undefined;
  /**
   * The store revision this session was loaded at (`snapshot.revision`), then of its own
   * saves; undefined for a session not from a store that keeps revisions.
   */
  private storedRevision: number | undefined;
  private saves: Promise<void> = Promise.resolve();
  private readonly limits: ToolLimits;
  private readonly budget: ContextBudget;
  private readonly tracing: SessionTracing;
  /** The provider's finish reason of the latest model call (`RunResult.finishReason`). */
  private lastFinishReason: string | undefined;
  /** `options.tickLog`: one record per tick, an observer of the events. */
  private readonly tickLog: TickLog | undefined;
  private tickLogWrites: Promise<void> = Promise.resolve();
  /** `options.model`, giving repeated tool-call ids of one response their own ids. */
  private readonly sdkModel: LanguageModel;

  constructor(
    private readonly element: ReactNode,
    private readonly options: SessionOptions,
  ) {
    checkSessionOptions(options);
    const seeded =
      options.snapshot !== undefined
        ? restoreSnapshotState<SessionState>(options.snapshot)
        : { id: options.id ?? crypto.randomUUID(), ...options.state };
    // Fields and guard slices added by later versions start empty in a restored session.
    this.currentState = produce(withInitialState(seeded), () => {});
    this.id = this.currentState.id;
    this.storedRevision = options.snapshot?.revision;
    // One id rule for sessions, stores and the CLI: fail here, not at the first save many ticks later.
    assertValidSessionId(this.id);
    this.sdkModel = withUniqueCallIds(options.model, (renamed) =>
      this.emit({
        type: 'warning',
        tick: this.currentState.tick + 1,
        code: 'duplicate-tool-call-ids',
        message:
          `The model's response repeated tool call ids; renamed ${renamed.map((r) => `${r.from} → ${r.to}`).join(', ')} ` +
          'so that each call runs with its own input and each result pairs with its call.',
      }),
    );
    this.limits = toolLimits(options);
    this.budget = new ContextBudget(options.context, (event) => this.emit(event));
    this.root = createAgateRoot();
    this.events = new EventLog(options.maxEvents ?? 1_000, () => this.currentState.tick);
    const host: GuardHost = {
      sessionId: this.id,
      options,
      registry: this.registry,
      devChecks: options.devChecks ?? process.env.NODE_ENV !== 'production',
      state: () => this.currentState,
      update: (recipe) => this.update(recipe),
      assign: (key, value) => {
        const state = this.currentState;
        this.currentState = Object.freeze({
          ...state,
          guards: Object.freeze({ ...state.guards, [key]: value }),
        });
      },
      emit: (event) => this.emit(event),
      warnOnce: (key, code, message) => this.warnOnce(key, code, message),
      store: () => this.store(),
      snapshot: (label, id) => this.snapshot(label, id),
      createSession: (child, childOptions) => createSession(child, childOptions),
    };
    const { set, families } = createGuards(host, options.guardFamilies);
    this.guards = set;
    // The families' public methods (`approve`, `setKnob`, ...): see guards/session-api.ts.
    Object.defineProperties(this, familyApi(families));
    this.tracing = new SessionTracing(this, options, agentName(element, options.name));
    this.tickLog = this.openTickLog(options);
    if (options.onEvent) this.events.subscribe(options.onEvent);
  }

  get state(): SessionState {
    return this.currentState;
  }

  /**
   * The store revision the session knows: the `revision` of the snapshot it was created from,
   * then of its own saves (a claimed run's start and end). Undefined when it was not loaded
   * from a store that keeps revisions. Save over it: `store.save(session.snapshot(),
   * { expectedRevision: session.revision })`.
   */
  get revision(): number | undefined {
    return this.storedRevision;
  }

  /** The context compiled by the latest render (undefined before the first). */
  get context(): CompiledContext | undefined {
    return this.lastContext;
  }

  get model(): LanguageModel {
    return this.options.model;
  }

  /** Every event, or only `types` (a `model:delta` subscription makes `'auto'` stream). */
  subscribe(listener: EventListener, options?: SubscribeOptions): () => void {
    return this.events.subscribe(listener, options);
  }

  /** The tick log's records, oldest first (empty unless `tickLog` is on). */
  ticks(): TickRecord[] {
    return this.tickLog?.ticks() ?? [];
  }

  /** Renders the tree with the current state and compiles it; no model call. */
  render(): CompiledContext {
    this.assertUsable();
    this.openResources.beginRender();
    const element = createElement(
      SessionProvider,
      { value: { session: this, state: this.currentState, registry: this.registry } },
      this.element,
    );
    this.root.render(element);
    const tree = compileHostTree(this.root.container, this.budget.active);
    const added = this.guards.render(tree);
    // A server's tool under a name that is taken: left out, said once, and the run goes on.
    for (const left of added.leftOut) {
      this.warnOnce(
        `mcp-tool-name-taken:${left.server}:${left.name}`,
        'mcp-tool-name-taken',
        `<McpServer name="${left.server}"> offers a tool named "${left.name}", and ${left.takenBy} ` +
          `has that name: the server's tool is left out. To mount it, give the server a prefix ` +
          `(prefix="${left.server}" mounts it as "${left.server}_${left.name}").`,
      );
    }
    const compiled: CompiledContext = {
      system: tree.system,
      messages: tree.messages,
      tools: added.tools,
      ephemeral: [
        ...added.ephemeral,
        ...this.currentState.notices.map((text) => ({ text, source: 'runtime' })),
      ],
      // Every family gives its reports on every render (see GuardContribution.reports).
      ...(added.reports as ContextReports),
    };
    const context = this.budget.apply(compiled, tree, this.currentState.tick + 1);
    Object.defineProperty(context, COMPILED_CONTEXT, { value: true });
    this.guards.check(context);
    this.lastContext = context;
    return context;
  }

  /** Runs ticks until the model finishes, a guard ends the run, or `maxTicks` is reached. */
  async run<O = unknown>(options: RunOptions = {}): Promise<RunResult<O>> {
    this.assertUsable();
    if (this.running) {
      throw new SessionStateError(
        'run() is already in progress on this session; await it (or abort it) before starting another.',
      );
    }
    checkRunLimits(options);
    this.running = true;
    let claimed: boolean;
    try {
      claimed = await this.claim(options);
    } catch (error) {
      this.running = false;
      throw error;
    }
    const maxTicks = options.maxTicks ?? this.options.maxTicks ?? DEFAULT_MAX_TICKS;
    const signal = options.signal ?? this.options.signal ?? new AbortController().signal;
    const startTick = this.currentState.tick;
    const last = this.currentState.status;
    let end: { status: RunStatus; reason?: string; error?: AgateError } | undefined;
    try {
      this.budget.forRun(options.context);
      this.guards.runStart({ resumedByPerson: last === 'paused' || last === 'stopped' });
      this.update((draft) => {
        draft.status = 'running';
        delete draft.reason;
      });
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
          reason: abortedReason(
            signal,
            options.signal === undefined && this.options.signal === signal,
          ),
        };
      } else {
        end = { status: 'error', ...runFault(error, this.currentState.tick + 1) };
        if (end.error !== undefined) this.tracing.failed(end.error);
      }
    } finally {
      this.running = false;
    }
    // Nothing a component opened outlives the run (child processes, sockets).
    await this.closeResources();

    const { status, error } = end;
    let { reason } = end;
    this.update((draft) => {
      draft.status = status;
      if (reason !== undefined) draft.reason = reason;
    });
    const save = SAVE_AT_END[status];
    // A claimed run always saves its end: that releases the claim.
    if (claimed || save === 'always' || (save === 'store' && this.options.store !== undefined)) {
      try {
        await this.saveToStore(this.snapshot(status));
      } catch (saveError) {
        // Still resumable here (run() goes on), but a person looking in the store would not find it.
        const problem = `Saving the ${status} session to the store failed: ${errorMessage(saveError)}`;
        this.emit({
          type: 'warning',
          tick: this.currentState.tick,
          code: `${status === 'paused' ? 'pause' : status}-save-failed`,
          message: problem,
        });
        reason = `${reason ?? ''} ${problem}`.trim();
        const updated = reason;
        this.update((draft) => {
          draft.reason = updated;
        });
      }
    }
    const ticks = this.currentState.tick - startTick;
    const report = familyReport(this.guards);
    this.emit({
      type: 'run:end',
      status,
      ...(reason !== undefined ? { reason } : {}),
      ticks,
      ...(report.output !== undefined ? { output: report.output } : {}),
    });
    // The tick log's last records are in the store when run() returns (a no-op without one).
    await this.tickLogWrites;
    const result: RunResult = {
      status,
      ...(reason !== undefined ? { reason } : {}),
      ticks,
      totalTicks: this.currentState.tick,
      text: this.currentState.text,
      timeline: this.currentState.timeline,
      usage: this.currentState.usage,
      ...(this.lastFinishReason !== undefined ? { finishReason: this.lastFinishReason } : {}),
      ...report,
      events: this.events.recent(),
      ...(error !== undefined ? { error } : {}),
    };
    // `output` was checked against the <Output> schema the caller typed `O` after.
    return result as RunResult<O>;
  }

  /** One tick on its own (render, model call, tools, guards). Most callers want `run()`. */
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

  /** Unmounts the tree (running effects' cleanups). The session cannot be used afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.root.unmount();
    this.disposed = true;
    void this.closeResources();
  }

  /**
   * Closes what components opened (MCP connections) without ending the session: for callers
   * of `tick()`, since `run()` closes them itself when it ends. The next tick opens them again.
   */
  async close(): Promise<void> {
    if (this.running) {
      throw new SessionStateError(
        'close() was called while a run is in progress; abort the run (its end closes them) or await it.',
      );
    }
    await this.closeResources();
  }

  /** Where components keep what they open for a run (`<McpServer>`'s connection). */
  get resources(): SessionResources {
    return this.openResources;
  }

  /**
   * The session as plain JSON. `createSession(element, { ...options, snapshot })` continues
   * from it, in this process or another.
   */
  snapshot(label?: string, id: string = this.id): SessionSnapshot<SessionState> {
    return createSnapshot(id, this.currentState, label);
  }

  /**
   * Saves the session to its store (`options.store`, else the default file store) over the
   * revision it knows (`revision`), and then knows the next one: the way to save a session
   * between or during runs (at every tick end, say) without breaking its run's claim. Throws
   * `StaleSessionError` when another process saved it in between (nothing is written).
   */
  async save(label?: string): Promise<void> {
    this.assertUsable();
    // Shares the frozen state with the snapshot (no copy): a save costs what the tick added.
    await this.saveToStore(
      createSnapshot(this.id, this.currentState, label, { shareFrozen: true }),
    );
  }

  /** Declarations registry for the hooks and components that declare guards. */
  get declarations(): DeclarationRegistry {
    return this.registry;
  }

  // ---- internals -------------------------------------------------------------------------

  private openTickLog(options: SessionOptions): TickLog | undefined {
    if (options.tickLog === undefined || options.tickLog === false) return undefined;
    const store = options.store;
    const log = new TickLog(
      options.tickLog === true ? {} : options.tickLog,
      () => this.lastContext,
      () => this.currentState,
      (record, trimmed) => {
        if (store?.appendTicks === undefined) return;
        const append = store.appendTicks.bind(store);
        // In order, and never failing the run: a tick log is observability.
        this.tickLogWrites = this.tickLogWrites
          .then(() => (trimmed ? append(this.id, trimmed, true) : append(this.id, [record])))
          .catch((error: unknown) =>
            this.warnOnce(
              'tick-log',
              'tick-log-save-failed',
              `Saving the tick log failed: ${errorMessage(error)}`,
            ),
          );
      },
    );
    this.events.subscribe((event) => log.observe(event));
    return log;
  }

  private async tickWith(signal: AbortSignal): Promise<TickOutcome> {
    const before = this.currentState;
    try {
      return await this.runTick(signal);
    } catch (error) {
      // A tick is atomic: an abort, or a failure before the commit, leaves the state of the last
      // completed tick. A failure after the commit (a guard's tick end) keeps the committed tick.
      // A tick whose calls saved progress (a sub-agent) keeps its in-flight record instead, so
      // that the next run continues those calls rather than starting them over.
      if (
        (signal.aborted || this.currentState.tick === before.tick) &&
        inflightOf(this.currentState, before.tick + 1) === undefined
      ) {
        this.currentState = before;
      }
      throw signal.aborted ? error : atTick(error, before.tick + 1);
    }
  }

  private async runTick(signal: AbortSignal): Promise<TickOutcome> {
    const tickNo = this.currentState.tick + 1;
    const startedAt = performance.now();
    this.emit({ type: 'tick:start', tick: tickNo });
    let context = this.render();
    // A component's connection opens at the first tick that renders it; its tools then render.
    if (this.openResources.active) {
      const changed = this.openResources.prepare(signal);
      if (typeof changed === 'boolean' ? changed : await changed) context = this.render();
    }
    let guardTick: GuardTick = { tick: tickNo, context, signal, recentTicks: this.recentTicks };
    const released = this.guards.releaseHeldCalls(guardTick);
    if (released.length > 0) {
      // Calls of an earlier response a person has decided on: their results go in first.
      await this.runReleased(guardTick, released);
      context = this.render();
      guardTick = { tick: tickNo, context, signal, recentTicks: this.recentTicks };
    }

    // A tick interrupted while its tools ran (a sub-agent waiting for approval, an abort)
    // goes on from its record: the model is not asked again.
    const resumed = inflightOf(this.currentState, tickNo);
    let turn: ModelTurn;
    if (resumed !== undefined) {
      turn = resumed.response;
    } else {
      const pendingVerdict = this.guards.beforeModelCall(guardTick);
      const verdict = isThenable(pendingVerdict) ? await pendingVerdict : pendingVerdict;
      if (verdict.kind === 'end')
        return { done: true, status: verdict.status, reason: verdict.reason };

      this.emit({
        type: 'model:request',
        tick: tickNo,
        messages: context.messages.length,
        tools: this.toolIndex.of(context.tools).names.slice(),
        ephemeral: context.ephemeral.length,
      });
      turn = await modelStep(this.options.steps, tickNo, () =>
        this.tracing.model(callModelUntilAborted)({
          model: this.sdkModel,
          context,
          signal,
          streaming: shouldStream(this.options.streaming, this.events),
          requestForms: this.requestForms,
          ...(this.options.modelSettings ? { settings: this.options.modelSettings } : {}),
          onDelta: (kind, delta) => this.emit({ type: 'model:delta', tick: tickNo, kind, delta }),
        }),
      );
      this.emit({
        type: 'model:response',
        tick: tickNo,
        text: turn.text,
        toolCalls: turn.toolCalls,
        finishReason: turn.finishReason,
        usage: turn.usage,
        ...(turn.responseId !== undefined ? { responseId: turn.responseId } : {}),
        ...(turn.responseModel !== undefined ? { responseModel: turn.responseModel } : {}),
      });
    }

    const tools = this.toolIndex.of(context.tools).byName;
    const phase = await this.runTools(guardTick, turn, tools, resumed);
    if (phase.suspended !== undefined) {
      return { done: true, status: phase.suspended.status, reason: phase.suspended.reason };
    }
    const toolResults = phase.results;
    const result: TickResult = {
      tick: tickNo,
      toolCalls: turn.toolCalls,
      toolResults,
      text: turn.text,
      finishReason: turn.finishReason,
      usage: turn.usage,
    };
    const committed = commitTick(this.currentState, result, tickMessages(result, turn.reasoning), {
      maxTimelineMessages: this.options.maxTimelineMessages ?? 5_000,
    });
    this.currentState = committed.state;
    const { dropped } = committed;
    if (dropped > 0) this.emit({ type: 'timeline:trimmed', tick: tickNo, dropped });
    this.lastFinishReason = turn.finishReason;
    const previous = this.recentTicks.at(-1);
    let recorded = result;
    if (previous !== undefined && isCutOff(previous) && result.toolCalls.length === 0) {
      // A continuation: the answer is the cut-off text and what follows it.
      const whole = previous.text + turn.text;
      this.update((draft) => {
        draft.text = whole;
      });
      recorded = { ...result, text: whole };
    }
    this.recentTicks.push(recorded);
    if (this.recentTicks.length > RECENT_TICKS_CAP) this.recentTicks.shift();

    // Computed at most once per tick, and only if a family compares calls (repeats, rework).
    let signatures: readonly string[] | undefined;
    const pendingEnd = this.guards.tickEnd(guardTick, result, {
      elapsedMs: performance.now() - startedAt,
      get signatures() {
        signatures ??= result.toolCalls.map((c) => callSignature(c.toolName, c.input));
        return signatures;
      },
    });
    const ended = isThenable(pendingEnd) ? await pendingEnd : pendingEnd;
    this.emit({ type: 'tick:end', tick: tickNo, result });
    if (ended.kind === 'end') return { done: true, status: ended.status, reason: ended.reason };

    if (turn.toolCalls.length > 0) {
      // A tool call can ask to finish too (a final answer): then the exit is judged as usual.
      return this.guards.finishRequested(guardTick, result)
        ? this.attemptExit(guardTick)
        : { done: false };
    }
    const ending = judgeReply(recorded, this.recentTicks.slice(0, -1));
    if (ending.kind === 'end') return { done: true, status: ending.status, reason: ending.reason };
    if (ending.kind === 'again') {
      this.update((draft) => {
        draft.notices = [ending.notice];
      });
      this.emit({
        type: 'warning',
        tick: tickNo,
        code: ending.continues ? 'reply-cut-off' : 'empty-reply',
        message: ending.notice,
      });
      return { done: false };
    }
    return this.attemptExit(guardTick);
  }

  /**
   * The response's tool calls (see runtime/tool-batch.ts for the order): each judged by the
   * guards, run within its limits, and recorded. A call that suspends (a sub-agent waiting for
   * approval) leaves the tick uncommitted, its record in the state for the next run; a call a
   * guard holds (a person must approve it) gets no result this tick.
   */
  private async runTools(
    guardTick: GuardTick,
    turn: ModelTurn,
    tools: ReadonlyMap<string, CompiledTool>,
    resumed: InflightTick | undefined,
  ): Promise<{ results: TickToolResult[]; suspended?: ToolSuspended }> {
    const { tick: tickNo } = guardTick;
    // Calls that wait on I/O (an MCP server, a child process) turn the event loop themselves:
    // noted, so that their results need no turn of their own (finishToolCall).
    if (!this.turnNoted) {
      this.turnNoted = true;
      setImmediate(this.noteTurn);
    }
    const inflight = new InflightRecorder(tickNo, turn, (recipe) => this.update(recipe), resumed);
    const results: TickToolResult[] = [];
    let suspended: ToolSuspended | undefined;
    type Ran =
      | ToolCallOutcome
      | { suspended: ToolSuspended }
      | { finished: TickToolResult }
      | { held: true };
    await runToolBatch<TickToolCall, Ran>(turn.toolCalls, {
      concurrency: (call) => {
        if (inflight.finished(call.toolCallId) !== undefined) return undefined;
        const limit = tools.get(call.toolName)?.concurrency;
        return limit === undefined ? undefined : { key: call.toolName, limit };
      },
      start: async (call) => {
        const finished = inflight.finished(call.toolCallId);
        if (finished !== undefined) return { finished };
        this.emit({ type: 'tool:call', tick: tickNo, ...call });
        const saved = inflight.saved(call.toolCallId);
        try {
          const outcome = await this.startToolCall(guardTick, call, tools, undefined, {
            ...(saved !== undefined ? { resume: saved } : {}),
            saveProgress: (progress) => inflight.saveProgress(call.toolCallId, progress),
          });
          return outcome ?? { held: true };
        } catch (error) {
          if (error instanceof ToolSuspended) return { suspended: error };
          throw error;
        }
      },
      finish: async (_call, ran) => {
        if ('finished' in ran) {
          results.push(ran.finished);
          return;
        }
        if ('suspended' in ran) {
          suspended ??= ran.suspended;
          return;
        }
        if ('held' in ran) return;
        const result = await this.finishToolCall(guardTick, ran);
        inflight.recordResult(result);
        results.push(result);
      },
    });
    if (suspended !== undefined) {
      inflight.keep();
      return { results, suspended };
    }
    inflight.clear();
    return { results };
  }

  /**
   * One tool call through the guards, up to its execution: refused (the guard's message), held
   * (undefined: no result this tick), answered (`answer`, a released call a person denied) or
   * run within the limits.
   */
  private async startToolCall(
    guardTick: GuardTick,
    call: TickToolCall,
    tools: ReadonlyMap<string, CompiledTool>,
    answer?: ReleasedCall['answer'],
    extra?: Pick<ToolExecuteContext, 'resume' | 'saveProgress'>,
  ): Promise<ToolCallOutcome | undefined> {
    const { tick: tickNo, context, signal } = guardTick;
    const { toolCallId, toolName } = call;
    const pendingVerdict =
      answer === undefined ? this.guards.beforeToolCall(guardTick, call) : ALLOW;
    const verdict = isThenable(pendingVerdict) ? await pendingVerdict : pendingVerdict;
    if (verdict.kind === 'hold') {
      this.emit({
        type: 'tool:held',
        tick: tickNo,
        toolCallId,
        toolName,
        input: call.input,
        by: verdict.by,
        reason: verdict.reason,
      });
      return undefined;
    }
    if (answer !== undefined) {
      const tool = tools.get(toolName);
      return {
        call,
        ...(tool !== undefined ? { tool } : {}),
        result: { toolCallId, toolName, output: answer.output, isError: answer.isError },
        executed: false,
      };
    }
    if (verdict.kind === 'refuse') {
      this.emit({
        type: 'tool:refused',
        tick: tickNo,
        toolCallId,
        toolName,
        by: verdict.by,
        message: verdict.message,
      });
      const result = {
        toolCallId,
        toolName,
        output: verdict.message,
        isError: true,
        refusedBy: verdict.by,
      };
      return { call, result, executed: false, refusedBy: verdict.by };
    }
    const traceContext = this.tracing.toolContext(toolCallId);
    return toolStep(this.options.steps, tickNo, call, tools, () =>
      this.tracing.tool(runLimitedToolCall)(call, tools, this.limits, {
        toolCallId,
        abortSignal: signal,
        tick: tickNo,
        messages: context.messages,
        ...extra,
        ...(traceContext !== undefined ? { traceContext } : {}),
      }),
    );
  }

  /** After a call ran (or was refused or answered): the guards see it, its result is emitted. */
  private async finishToolCall(
    guardTick: GuardTick,
    outcome: ToolCallOutcome,
  ): Promise<TickToolResult> {
    // A tool that blocked the event loop (synchronous work) held back signals such as Ctrl-C;
    // one turn of the loop lets their handlers run, so an abort lands before the next step.
    // Only after a millisecond of work since the last turn: a turn per quick call is time
    // the tick pays for nothing, and a signal waits at most that long. A call that waited on
    // I/O let the loop turn while it waited (noted in runTools), so it needs none either.
    if (performance.now() - this.lastYield >= YIELD_AFTER_MS) {
      await yieldToEventLoop();
      this.lastYield = performance.now();
    }
    guardTick.signal.throwIfAborted();
    const after = this.guards.afterToolCall(guardTick, outcome);
    if (isThenable(after)) await after;
    this.emit({
      type: 'tool:result',
      tick: guardTick.tick,
      ...outcome.result,
      ...truncationOf(outcome),
    });
    return outcome.result;
  }

  /** Released held calls: run (or answered) in order, their results put in the timeline. */
  private async runReleased(guardTick: GuardTick, released: ReleasedCall[]): Promise<void> {
    const tools = this.toolIndex.of(guardTick.context.tools).byName;
    const results: TickToolResult[] = [];
    for (const { call, answer } of released) {
      const outcome = await this.startToolCall(guardTick, call, tools, answer);
      if (outcome !== undefined) results.push(await this.finishToolCall(guardTick, outcome));
    }
    if (results.length > 0) this.currentState = withToolResults(this.currentState, results);
  }

  /** The model replied without tool calls: it is trying to finish. Guards may refuse. */
  private attemptExit(guardTick: GuardTick): TickOutcome {
    const { tick } = guardTick;
    this.emit({ type: 'exit:attempt', tick });
    const verdict = this.guards.exitAttempt(guardTick);
    if (verdict.kind === 'allow') return { done: true, status: 'completed' };
    if (verdict.kind === 'refuse') {
      this.update((draft) => {
        draft.notices = [verdict.notice];
      });
    }
    this.emit({
      type: 'exit:blocked',
      tick,
      gate: verdict.names[0] ?? '',
      gates: verdict.names,
      reasons: verdict.reasons,
      by: 'runtime',
      final: verdict.kind === 'end',
    });
    return verdict.kind === 'end'
      ? { done: true, status: 'blocked', reason: verdict.reason }
      : { done: false };
  }

  private endAtMaxTicks(maxTicks: number): { status: RunStatus; reason: string } {
    const engaged = this.guards.engagedAtMaxTicks();
    if (engaged.length > 0) {
      return {
        status: 'blocked',
        reason: `maxTicks (${maxTicks}) reached while ${engaged.join('; ')}. The agent did not finish; it is not a success.`,
      };
    }
    return {
      status: 'max-ticks',
      reason: `maxTicks (${maxTicks}) reached before the model finished. Call run() again to continue.`,
    };
  }

  /**
   * A stored session (loaded with a revision, run with an explicit store) is claimed at run
   * start: saved as running, over the revision it was loaded at. Throws
   * `SessionRunningElsewhereError` when another process holds a claim (unless `takeOver`, or
   * that process is known dead) or saved the session in between. True when claimed.
   */
  private async claim(options: RunOptions): Promise<boolean> {
    if (this.options.store === undefined || this.storedRevision === undefined) return false;
    const { status, reason } = this.currentState;
    const held = parseClaim(status, reason);
    if (held !== undefined && options.takeOver !== true) {
      if (!claimIsDead(held)) {
        throw new SessionRunningElsewhereError(
          this.id,
          `process ${held.pid} on ${held.host} claimed it at ${held.since} (store revision ${this.storedRevision})`,
        );
      }
      this.emit({
        type: 'warning',
        tick: this.currentState.tick,
        code: 'run-taken-over',
        message: `Session "${this.id}" was claimed by process ${held.pid} on this host, which is gone; this run takes it over.`,
      });
    }
    const claim = produce(this.currentState, (draft) => {
      draft.status = 'running';
      draft.reason = claimReason();
    });
    try {
      await this.saveToStore(createSnapshot(this.id, claim, 'running'));
    } catch (error) {
      if (error instanceof StaleSessionError) {
        throw new SessionRunningElsewhereError(
          this.id,
          `it was saved by another process since it was loaded (revision ${error.expectedRevision}, now ${error.actualRevision})`,
        );
      }
      throw error;
    }
    return true;
  }

  /**
   * Saves over the revision this session knows, when it knows one; then knows the next.
   * One at a time (a tick-end save still in flight when the run ends), so each save is made
   * over the revision the one before it left.
   */
  private saveToStore(snapshot: SessionSnapshot): Promise<void> {
    const save = async () => {
      const expectedRevision = this.storedRevision;
      await this.store().save(
        snapshot,
        expectedRevision === undefined ? undefined : { expectedRevision },
      );
      if (expectedRevision !== undefined) this.storedRevision = expectedRevision + 1;
    };
    const done = this.saves.then(save, save);
    this.saves = done.catch(() => {});
    return done;
  }

  private store(): SessionStore {
    this.sessionStore ??= storeAtStep(this.options.store ?? createFileStore());
    return this.sessionStore;
  }

  private async closeResources(): Promise<void> {
    for (const error of await this.openResources.close()) {
      this.emit({
        type: 'warning',
        tick: this.currentState.tick,
        code: 'resource-close-failed',
        message: `Closing a connection at the end of the run failed: ${errorMessage(error)}`,
      });
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

  private emit(event: AgateEvent): void {
    this.events.emit(event);
  }

  private assertUsable(): void {
    if (this.disposed) throw new SessionStateError('This session was disposed; create a new one.');
  }
}

/** Resolves after one turn of the event loop (its I/O and signal handlers have run). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Creates a session for an agent tree; call `.run()` to drive it. */
export function createSession(element: ReactNode, options: SessionOptions): Session {
  return new Session(element, options);
}
