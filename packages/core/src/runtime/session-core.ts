import type { LanguageModel } from 'ai';
import { freeze, produce } from 'immer';
import type { ReactNode } from 'react';
import { ContextBudget } from '../context-budget/budget.js';
import { errorMessage } from '../ground/thrown.js';
import { createGuards, type GuardInstances } from '../guard-seam/built-in-families.js';
import type { GuardHost } from '../guard-seam/guard-family.js';
import type { GuardSet } from '../guard-seam/guard-set.js';
import { withInitialState } from '../guard-seam/initial-state.js';
import { createFileStore } from '../persistence/file-store.js';
import { restoreSnapshotState } from '../persistence/restore.js';
import type { SessionStore } from '../persistence/session-store.js';
import {
  assertValidSessionId,
  createSnapshot,
  type SessionSnapshot,
} from '../persistence/snapshot.js';
import type { CompiledContext } from '../renderer/compiled-context.js';
import { type AgateRoot, createAgateRoot } from '../renderer/root.js';
import type { SessionState } from '../state/session-state.js';
import { SessionStateError } from '../state/session-state-error.js';
import type { TickResult } from '../state/tick-result.js';
import { agentName } from '../telemetry/agent-name.js';
import { SessionTracing, type TracedSession } from '../telemetry/session-tracing.js';
import { TickLog } from '../tick-log/tick-log.js';
import { DeclarationRegistry } from './declarations.js';
import { type AgateEvent, type EventListener, EventLog } from './events.js';
import { storeAtStep } from './fault.js';
import { checkSessionOptions } from './option-checks.js';
import { RECENT_TICKS_CAP, RecentTicks } from './recent-ticks.js';
import { RequestFormCache } from './request-messages.js';
import { SessionResources } from './resources.js';
import type { RenderingSession } from './session-context.js';
import type { SessionOptions } from './session-options.js';
import { type ToolLimits, toolLimits } from './tool-limits.js';
import { withUniqueCallIds } from './unique-call-ids.js';

/**
 * What the parts of one session share: its state, events, guards and per-session caches, and the
 * few operations every part uses (update, emit, save). `Session` makes one and wires it; the
 * tick's stages (runtime/tick/) and the run loop (run-session.ts) are plain functions of it. One
 * per session, made once: a tick allocates nothing here.
 */
export class SessionCore implements TracedSession {
  readonly id: string;
  /** The session state: immutable (immer), replaced whole by every change. */
  state: SessionState;
  readonly root: AgateRoot;
  readonly registry = new DeclarationRegistry();
  readonly events: EventLog;
  /** Finished ticks, oldest first (capped), kept compact between runs (runtime/recent-ticks.ts). */
  readonly ticks = new RecentTicks(RECENT_TICKS_CAP);
  readonly requestForms = new RequestFormCache();
  /** What components open for the run (MCP connections): see runtime/resources.ts. */
  readonly resources = new SessionResources();
  readonly guards: GuardSet;
  /** Each built-in family's instance, for its methods on `Session` (guard-seam/built-in-family-api.ts). */
  readonly families: GuardInstances;
  readonly limits: ToolLimits;
  readonly budget: ContextBudget;
  readonly tracing: SessionTracing;
  /** `options.tickLog`: one record per tick, an observer of the events. */
  readonly tickLog: TickLog | undefined;
  /** `options.model`, giving repeated tool-call ids of one response their own ids. */
  readonly sdkModel: LanguageModel;
  running = false;
  disposed = false;
  /** When the event loop last turned, as far as the tick loop knows (see tick/run-tool-calls.ts). */
  lastYield = performance.now();
  /** An immediate is set to note the loop's next turn. */
  turnNoted = false;
  readonly noteTurn = (): void => {
    this.turnNoted = false;
    this.lastYield = performance.now();
  };
  /** The context compiled by the latest render (undefined before the first). */
  lastContext: CompiledContext | undefined;
  /** The provider's finish reason of the latest model call (`RunResult.finishReason`). */
  lastFinishReason: string | undefined;
  /**
   * The store revision this session was loaded at (`snapshot.revision`), then of its own
   * saves; undefined for a session not from a store that keeps revisions.
   */
  storedRevision: number | undefined;
  tickLogWrites: Promise<void> = Promise.resolve();
  private readonly warned = new Set<string>();
  private sessionStore: SessionStore | undefined;
  private saves: Promise<void> = Promise.resolve();

  constructor(
    readonly element: ReactNode,
    readonly options: SessionOptions,
    /** The `Session` the tree renders under (what `useSession()` returns). */
    readonly session: RenderingSession,
    /** `createSession`, for the families that run sessions of their own (sub-agents). */
    createChild: GuardHost['createSession'],
  ) {
    checkSessionOptions(options);
    const seeded =
      options.snapshot !== undefined
        ? restoreSnapshotState<SessionState>(options.snapshot)
        : { id: options.id ?? crypto.randomUUID(), ...options.state };
    // Fields and guard slices added by later versions start empty in a restored session.
    // Deep-frozen as an empty `produce` would, without its draft and scope.
    this.state = freeze(withInitialState(seeded), true);
    this.id = this.state.id;
    this.storedRevision = options.snapshot?.revision;
    // One id rule for sessions, stores and the CLI: fail here, not at the first save many ticks later.
    assertValidSessionId(this.id);
    this.sdkModel = withUniqueCallIds(options.model, (renamed) =>
      this.emit({
        type: 'warning',
        tick: this.state.tick + 1,
        code: 'duplicate-tool-call-ids',
        message:
          `The model's response repeated tool call ids; renamed ${renamed.map((r) => `${r.from} → ${r.to}`).join(', ')} ` +
          'so that each call runs with its own input and each result pairs with its call.',
      }),
    );
    this.limits = toolLimits(options);
    this.budget = new ContextBudget(options.context, (event) => this.emit(event));
    this.root = createAgateRoot();
    this.events = new EventLog(options.maxEvents ?? 1_000, () => this.state.tick);
    const host: GuardHost = {
      sessionId: this.id,
      options,
      registry: this.registry,
      devChecks: options.devChecks ?? process.env.NODE_ENV !== 'production',
      state: () => this.state,
      update: (recipe) => this.update(recipe),
      assign: (key, value) => {
        const state = this.state;
        this.state = Object.freeze({
          ...state,
          guards: Object.freeze({ ...state.guards, [key]: value }),
        });
      },
      emit: (event) => this.emit(event),
      warnOnce: (key, code, message) => this.warnOnce(key, code, message),
      store: () => this.store(),
      snapshot: (label, id) => this.snapshot(label, id),
      createSession: createChild,
    };
    const { set, families } = createGuards(host, options.guardFamilies);
    this.guards = set;
    this.families = families;
    this.tracing = new SessionTracing(this, options, agentName(element, options.name));
    this.tickLog = this.openTickLog(options);
    if (options.onEvent) this.events.subscribe(options.onEvent);
  }

  /** Finished ticks, oldest first (capped): what `GuardTick.recentTicks` shows. */
  get recentTicks(): TickResult[] {
    return this.ticks.list;
  }

  /** The context compiled by the latest render (what tracing reads). */
  get context(): CompiledContext | undefined {
    return this.lastContext;
  }

  subscribe(listener: EventListener): () => void {
    return this.events.subscribe(listener);
  }

  update(recipe: (draft: SessionState) => void): void {
    this.state = produce(this.state, recipe);
  }

  emit(event: AgateEvent): void {
    this.events.emit(event);
  }

  warnOnce(key: string, code: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.emit({ type: 'warning', tick: this.state.tick, code, message });
  }

  assertUsable(): void {
    if (this.disposed) throw new SessionStateError('This session was disposed; create a new one.');
  }

  snapshot(label?: string, id: string = this.id): SessionSnapshot<SessionState> {
    return createSnapshot(id, this.state, label);
  }

  /** `options.store`, or the default file store (created on first use). */
  store(): SessionStore {
    this.sessionStore ??= storeAtStep(this.options.store ?? createFileStore());
    return this.sessionStore;
  }

  /**
   * Saves over the revision this session knows, when it knows one; then knows the next.
   * One at a time (a tick-end save still in flight when the run ends), so each save is made
   * over the revision the one before it left.
   */
  saveToStore(snapshot: SessionSnapshot): Promise<void> {
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

  /** Closes what components opened (MCP connections); a failure is a warning, not an error. */
  async closeResources(): Promise<void> {
    for (const error of await this.resources.close()) {
      this.emit({
        type: 'warning',
        tick: this.state.tick,
        code: 'resource-close-failed',
        message: `Closing a connection at the end of the run failed: ${errorMessage(error)}`,
      });
    }
  }

  private openTickLog(options: SessionOptions): TickLog | undefined {
    if (options.tickLog === undefined || options.tickLog === false) return undefined;
    const store = options.store;
    const log = new TickLog(
      options.tickLog === true ? {} : options.tickLog,
      () => this.lastContext,
      () => this.state,
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
}
