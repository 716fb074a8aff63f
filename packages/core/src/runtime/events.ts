import type { JsonValue } from '../ground/json.js';
import { isThenable } from '../ground/thenable.js';
import { errorMessage } from '../ground/thrown.js';
import type { RunStatus, UsageTotals } from '../state/session-state.js';
import type { TickResult, TickToolCall } from '../state/tick-result.js';
import type { ToolOutputTruncation } from './tool-outcome.js';

/**
 * The events guard families declare, by type: a family adds its own by augmenting this
 * interface (`declare module`; the built-in families' are in guard-seam/built-in-family-types.ts),
 * so this floor names no family:
 *
 *   declare module '@agate/core' {
 *     interface GuardEventMap {
 *       'budget:spent': { tick: number; dollars: number };
 *     }
 *   }
 *
 * Every declared event is an `AgateEvent` (`{ type: 'budget:spent', tick, dollars }`): it
 * reaches `onEvent`, `session.subscribe`, `RunResult.events`, the tick log and spans.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the families' declarations (declaration merging).
export interface GuardEventMap {}

/** One event of every type declared in `GuardEventMap`. */
export type GuardEvent = {
  [K in keyof GuardEventMap]: { type: K } & GuardEventMap[K];
}[keyof GuardEventMap];

/**
 * Where an event comes from: `[]` for the session's own, `['reviewer#call_3']` for the
 * sub-agent that call runs, one segment per level of nesting. (Optional in the type so that
 * code emitting an event need not give it; every event a listener receives has one.)
 */
export interface EventPath {
  /**
   * Sub-agent names from the root session down to the one that emitted the event; empty for the
   * root's own.
   */
  path?: string[];
}

/** The path of a session's own events (shared, frozen: a listener must not change it). */
const ROOT_PATH = Object.freeze([]) as unknown as string[];

/** Everything a run reports, in order. `onEvent` and `session.subscribe` receive these. */
export type AgateEvent = (RuntimeEvent | GuardEvent) & EventPath;

/** The events of the tick loop itself. */
export type RuntimeEvent =
  | { type: 'run:start'; sessionId: string; tick: number }
  | { type: 'tick:start'; tick: number }
  | {
      type: 'model:request';
      tick: number;
      messages: number;
      tools: string[];
      ephemeral: number;
    }
  | { type: 'model:delta'; tick: number; kind: 'text' | 'reasoning'; delta: string }
  | {
      type: 'model:response';
      tick: number;
      text: string;
      toolCalls: TickToolCall[];
      finishReason: string;
      usage: UsageTotals;
      /** The provider's id of the answer and the model that gave it, when it said. */
      responseId?: string;
      responseModel?: string;
    }
  | { type: 'tool:call'; tick: number; toolCallId: string; toolName: string; input: unknown }
  | {
      type: 'tool:result';
      tick: number;
      toolCallId: string;
      toolName: string;
      output: JsonValue;
      isError: boolean;
      /** Set when `output` (what the model sees) was cut to `maxToolOutputChars`. */
      truncated?: ToolOutputTruncation;
    }
  | {
      /** A guard refused the call before `execute` (a pending checkpoint, ...); it never ran. */
      type: 'tool:refused';
      tick: number;
      toolCallId: string;
      toolName: string;
      /** The guard family that refused it. */
      by: string;
      message: string;
    }
  | { type: 'tick:end'; tick: number; result: TickResult }
  | { type: 'exit:attempt'; tick: number }
  | {
      type: 'exit:blocked';
      tick: number;
      /** The first refusing gate (by name); `gates` lists every one. */
      gate: string;
      gates: string[];
      reasons: string[];
      /** The runtime refuses exits; no one else can. */
      by: 'runtime';
      /** True when this refusal ends the run (`blocked`); false when the loop goes on. */
      final: boolean;
    }
  | { type: 'timeline:trimmed'; tick: number; dropped: number }
  | {
      /** The request was pruned to `context.maxTokens` (every tick where anything is left out). */
      type: 'context:pruned';
      tick: number;
      maxTokens: number;
      tokensBefore: number;
      tokensAfter: number;
      droppedMessages: number;
      /** Prioritized system sections and ephemeral blocks left out. */
      droppedElements: number;
      /** True when the cut moved this tick (the budget was reached); false while it is kept. */
      recut: boolean;
    }
  | { type: 'warning'; tick: number; code: string; message: string }
  | {
      type: 'run:end';
      status: RunStatus;
      reason?: string;
      ticks: number;
      /** `<Output schema>`'s checked value, as on `RunResult.output` (a completed run only). */
      output?: unknown;
    };

/** The `type` of every event a session emits: what `subscribe(listener, { types })` takes. */
export type AgateEventType = AgateEvent['type'];

/**
 * Receives every event. Listeners are observers: one that throws (or returns a promise that
 * rejects) never changes the run; the failure is reported once as a `warning` event.
 */
export type EventListener = (event: AgateEvent) => void;

/** Which events one `session.subscribe` listener receives. */
export interface SubscribeOptions {
  /**
   * Only these event types reach the listener. A subscription that names `model:delta` asks
   * for deltas as they stream: with `streaming: 'auto'` (the default) the model call streams
   * only while such a subscription exists. Without `types` the listener receives every event.
   */
  types?: readonly AgateEventType[];
}

/** Keeps the last `capacity` events (a long run must not grow without bound) and fans out. */
export class EventLog {
  private readonly listeners = new Map<EventListener, ReadonlySet<AgateEventType> | undefined>();
  private readonly failed = new WeakSet<EventListener>();
  private reporting = false;
  private buffer: AgateEvent[] = [];

  /** `currentTick`: the tick a listener failure is reported at, for events that carry none. */
  constructor(
    private readonly capacity: number,
    private readonly currentTick: () => number = () => 0,
  ) {}

  subscribe(listener: EventListener, options: SubscribeOptions = {}): () => void {
    // Keyed by the function: subscribing it again replaces its filter (one listener, as before).
    this.listeners.set(listener, options.types ? new Set(options.types) : undefined);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Whether a listener subscribed for this event type by name (not merely to everything). */
  requested(type: AgateEventType): boolean {
    for (const types of this.listeners.values()) if (types?.has(type)) return true;
    return false;
  }

  emit(emitted: AgateEvent): void {
    // The session's own events say so: `path: []` (a sub-agent's arrive with theirs).
    // Set on the object itself when it can be (every emitter builds a fresh one): a copy per
    // event was a tenth of Agate's own work per tick (issue 51 item 2).
    let event = emitted;
    if (emitted.path === undefined) {
      if (Object.isExtensible(emitted)) (emitted as { path?: string[] }).path = ROOT_PATH;
      else event = { ...emitted, path: ROOT_PATH } as AgateEvent;
    }
    this.buffer.push(event);
    // Amortized trim: drop a chunk at once instead of shifting on every event.
    if (this.buffer.length > this.capacity * 2) this.buffer = this.buffer.slice(-this.capacity);
    for (const [listener, types] of this.listeners) {
      if (types !== undefined && !types.has(event.type)) continue;
      try {
        const returned: unknown = listener(event);
        if (isThenable(returned)) {
          returned.then(undefined, (error: unknown) => this.listenerFailed(listener, event, error));
        }
      } catch (error) {
        this.listenerFailed(listener, event, error);
      }
    }
  }

  /**
   * Once per listener: a listener that fails on every event must not flood the log. A failure
   * while the warning itself is delivered is not reported again (no recursion).
   */
  private listenerFailed(listener: EventListener, event: AgateEvent, error: unknown): void {
    if (this.reporting || this.failed.has(listener)) return;
    this.failed.add(listener);
    this.reporting = true;
    try {
      this.emit({
        type: 'warning',
        tick: 'tick' in event ? event.tick : this.currentTick(),
        code: 'listener-failed',
        message:
          `An event listener failed on "${event.type}": ${errorMessage(error)}. Listeners are ` +
          'observers, so the run went on; this listener is not reported again.',
      });
    } finally {
      this.reporting = false;
    }
  }

  /**
   * The most recent events, oldest first, handed over: the log starts empty again. A run's
   * result takes its events this way, so an idle session does not keep a second copy of what
   * its caller holds (up to `maxEvents` events, most of an idle session's heap otherwise).
   */
  take(): AgateEvent[] {
    const events =
      this.buffer.length > this.capacity ? this.buffer.slice(-this.capacity) : this.buffer;
    this.buffer = [];
    return events;
  }
}
