import type { ModelMessage } from 'ai';
import type { JsonValue } from '../ground/json.js';
import type { AgateEvent } from '../runtime/events.js';
import type { GateStatus, UsageTotals } from '../state/session-state.js';

/** `SessionOptions.tickLog`: keep a bounded record of every tick (what `agate studio` shows). */
export interface TickLogOptions {
  /** Ticks kept; the oldest are dropped past this many. Default 1,000. */
  maxTicks?: number;
  /** Characters kept of one text field (a reply, a tool input or output, a message part). Default 10,000. */
  maxFieldChars?: number;
}

export const DEFAULT_TICK_LOG_TICKS = 1_000;
export const DEFAULT_TICK_LOG_FIELD_CHARS = 10_000;

/**
 * The request as the model saw it, stored as a change against the tick before: the messages
 * it shares with that tick's request are counted (`keep`), not repeated, and `system` / `tools`
 * are absent when unchanged. `materializeTicks` rebuilds whole requests.
 */
export interface TickRequestDelta {
  /** The system text, when it changed. */
  system?: string;
  /** The tools offered, when they changed. */
  tools?: Array<{ name: string; description?: string }>;
  /** Leading messages identical to the previous tick's request. */
  keep: number;
  /**
   * When the timeline was trimmed: after those, `drop` messages of the previous request are
   * left out and the next `keepAfter` are shared again. Absent otherwise.
   */
  drop?: number;
  /** Messages shared again after the dropped ones. */
  keepAfter?: number;
  /** The request's messages after those. */
  added: ModelMessage[];
  /** Content shown this tick only (gate instructions, notices), as `source: text`. */
  ephemeral: string[];
}

/** One tool call in a tick record: its input, output, and who refused it if a guard did. */
export interface TickRecordCall {
  /** The call's id. */
  toolCallId: string;
  /** The tool called. */
  toolName: string;
  /** The call's arguments. */
  input: JsonValue;
  /** Absent while the call had no result (the tick ended first). */
  output?: JsonValue;
  /** The call failed or was refused. */
  isError?: boolean;
  /** The guard family that refused the call before it ran. */
  refusedBy?: string;
}

/** One tick: what the model saw and said, what ran, and every guard decision. */
export interface TickRecord {
  /** The tick's number in the session. */
  tick: number;
  /** ISO 8601, when the tick started. */
  startedAt: string;
  /** Wall time the tick took. */
  durationMs: number;
  /** Absent when a guard ended the run before the model call. */
  request?: TickRequestDelta;
  /** The model's reply. */
  reply: { text: string; reasoning?: string; finishReason?: string; usage?: UsageTotals };
  /** The tick's tool calls and their results. */
  calls: TickRecordCall[];
  /** Gate and knob states at the end of the tick. */
  gates: Record<string, GateStatus>;
  /** The knobs' values at the end of the tick. */
  knobs: Record<string, JsonValue>;
  /** Guard decisions and everything else the tick reported, in order (no deltas, no tool events). */
  decisions: AgateEvent[];
  /** The token budget's cut, when anything was left out. */
  pruned?: {
    maxTokens: number;
    tokensBefore: number;
    tokensAfter: number;
    droppedMessages: number;
    droppedElements: number;
  };
}

/** A tick with its request rebuilt whole (`materializeTicks`). */
export interface MaterializedTick {
  record: TickRecord;
  system: string;
  tools: Array<{ name: string; description?: string }>;
  messages: ModelMessage[];
}
