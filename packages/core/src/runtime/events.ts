import type { ContinueEvaluation, StepContext } from '../gates/continue/types.js';
import type { PhaseStatus, PhaseWarningKind } from '../gates/phase/types.js';
import type { JsonValue } from '../state/json.js';
import type { ChangedBy, GateStatus, RunStatus, UsageTotals } from '../state/session-state.js';
import type { TickResult, TickToolCall } from './tick-result.js';

/** Everything a run reports, in order. `onEvent` and `session.subscribe` receive these. */
export type AgateEvent =
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
    }
  | { type: 'tool:call'; tick: number; toolCallId: string; toolName: string; input: unknown }
  | {
      type: 'tool:result';
      tick: number;
      toolCallId: string;
      toolName: string;
      output: JsonValue;
      isError: boolean;
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
  | {
      type: 'knob:changed';
      tick: number;
      knob: string;
      value: JsonValue;
      previous: JsonValue | undefined;
      by: ChangedBy;
    }
  | {
      type: 'gate:activated' | 'gate:deferred' | 'gate:cleared';
      tick: number;
      gate: string;
      from: GateStatus;
      by: ChangedBy;
      reason?: string;
    }
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
  | { type: 'continue:evaluated'; tick: number; evaluation: ContinueEvaluation; step: StepContext }
  | { type: 'continue:throttled'; tick: number; cooldownMs: number }
  | { type: 'checkpoint:saved'; tick: number; step: number; snapshotId: string }
  | { type: 'timeline:trimmed'; tick: number; dropped: number }
  /** `<PhaseGates>`: the phases changed (emitted at tick end). */
  | { type: 'phase:changed'; tick: number; status: PhaseStatus }
  /** `<PhaseGates>`: a warning goes into the next request. */
  | { type: 'phase:warning'; tick: number; kind: PhaseWarningKind; text: string }
  | { type: 'warning'; tick: number; code: string; message: string }
  | { type: 'run:end'; status: RunStatus; reason?: string; ticks: number };

export type AgateEventType = AgateEvent['type'];

export type EventListener = (event: AgateEvent) => void;

/** Keeps the last `capacity` events (a long run must not grow without bound) and fans out. */
export class EventLog {
  private readonly listeners = new Set<EventListener>();
  private buffer: AgateEvent[] = [];

  constructor(private readonly capacity: number) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(event: AgateEvent): void {
    this.buffer.push(event);
    // Amortized trim: drop a chunk at once instead of shifting on every event.
    if (this.buffer.length > this.capacity * 2) this.buffer = this.buffer.slice(-this.capacity);
    for (const listener of this.listeners) listener(event);
  }

  /** The most recent events, oldest first. */
  recent(): AgateEvent[] {
    return this.buffer.length > this.capacity
      ? this.buffer.slice(-this.capacity)
      : [...this.buffer];
  }
}
