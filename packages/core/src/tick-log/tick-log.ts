import type { ModelMessage } from 'ai';
import type { JsonValue } from '../ground/json.js';
import type { CompiledContext } from '../renderer/compiled-context.js';
import type { AgateEvent } from '../runtime/events.js';
import type { SessionState } from '../state/session-state.js';
import { boundJson, cutText } from './bounds.js';
import { rebase } from './materialize.js';
import {
  DEFAULT_TICK_LOG_FIELD_CHARS,
  DEFAULT_TICK_LOG_TICKS,
  type TickLogOptions,
  type TickRecord,
  type TickRecordCall,
  type TickRequestDelta,
} from './tick-record.js';

/** Events that are the tick's own record (kept elsewhere in it) or too many to keep. */
const NOT_DECISIONS = new Set<AgateEvent['type']>([
  'tick:start',
  'tick:end',
  'model:delta',
  'model:request',
  'model:response',
  'tool:call',
  'tool:result',
  'run:start',
  'run:end',
]);

interface Building {
  record: TickRecord;
  started: number;
  ended?: number;
  reasoning: string;
}

/**
 * Builds one `TickRecord` per tick from the session's events (an observer: the tick loop knows
 * nothing of it) and keeps the last `maxTicks`. A finished record goes to `onRecord` (the
 * session appends it to its store).
 */
export class TickLog {
  readonly maxTicks: number;
  readonly maxFieldChars: number;
  private records: TickRecord[] = [];
  private current: Building | undefined;
  /** The previous request's messages and their JSON, to store the next one as a change. */
  private previous:
    | { system: string; tools: string; messages: ModelMessage[]; json: string[] }
    | undefined;

  constructor(
    options: TickLogOptions,
    private readonly context: () => CompiledContext | undefined,
    private readonly state: () => SessionState,
    private readonly onRecord: (record: TickRecord, trimmed: TickRecord[] | undefined) => void,
  ) {
    this.maxTicks = options.maxTicks ?? DEFAULT_TICK_LOG_TICKS;
    this.maxFieldChars = options.maxFieldChars ?? DEFAULT_TICK_LOG_FIELD_CHARS;
  }

  /** The kept records, oldest first; the first carries its whole request. */
  ticks(): TickRecord[] {
    return [...this.records];
  }

  observe(event: AgateEvent): void {
    // A sub-agent's events (with a path) are its own ticks, not this session's.
    if (event.path !== undefined && event.path.length > 0) return;
    if (event.type === 'tick:start') {
      // A tick's record ends when the next begins: the exit decision comes after `tick:end`.
      this.finish();
      this.current = {
        started: performance.now(),
        reasoning: '',
        record: {
          tick: event.tick,
          startedAt: new Date().toISOString(),
          durationMs: 0,
          reply: { text: '' },
          calls: [],
          gates: {},
          knobs: {},
          decisions: [],
        },
      };
      return;
    }
    const building = this.current;
    if (building === undefined) return;
    const { record } = building;
    const max = this.maxFieldChars;
    switch (event.type) {
      case 'model:request':
        record.request = this.requestDelta();
        break;
      case 'model:delta':
        if (event.kind === 'reasoning') building.reasoning += event.delta;
        break;
      case 'model:response':
        record.reply = {
          text: cutText(event.text, max),
          ...(building.reasoning !== '' ? { reasoning: cutText(building.reasoning, max) } : {}),
          finishReason: event.finishReason,
          usage: event.usage,
        };
        break;
      case 'tool:call':
        record.calls.push({
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: boundJson(event.input, max),
        });
        break;
      case 'tool:result':
        this.callOf(record, event.toolCallId, event.toolName).output = boundJson(event.output, max);
        this.callOf(record, event.toolCallId, event.toolName).isError = event.isError;
        break;
      case 'tool:refused': {
        const call = this.callOf(record, event.toolCallId, event.toolName);
        call.refusedBy = event.by;
        call.output = cutText(event.message, max);
        call.isError = true;
        record.decisions.push(boundEvent(event, max));
        break;
      }
      case 'context:pruned':
        record.pruned = {
          maxTokens: event.maxTokens,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
          droppedMessages: event.droppedMessages,
          droppedElements: event.droppedElements,
        };
        record.decisions.push(event);
        break;
      case 'tick:end':
        building.ended = performance.now();
        break;
      case 'run:end':
        this.finish();
        break;
      default:
        if (!NOT_DECISIONS.has(event.type)) record.decisions.push(boundEvent(event, max));
    }
  }

  private callOf(record: TickRecord, toolCallId: string, toolName: string): TickRecordCall {
    let call = record.calls.find((c) => c.toolCallId === toolCallId);
    if (call === undefined) {
      call = { toolCallId, toolName, input: null };
      record.calls.push(call);
    }
    return call;
  }

  private finish(): void {
    const building = this.current;
    if (building === undefined) return;
    this.current = undefined;
    const { record } = building;
    const state = this.state();
    record.durationMs =
      Math.round(((building.ended ?? performance.now()) - building.started) * 10) / 10;
    // Gates and knobs as the tick (and its exit decision) left them.
    record.gates = Object.fromEntries(
      Object.entries(state.guards.gates.gates).map(([k, g]) => [k, g.state]),
    );
    record.knobs = boundJson(state.guards.gates.knobs, this.maxFieldChars) as Record<
      string,
      JsonValue
    >;
    this.records.push(record);
    let trimmed: TickRecord[] | undefined;
    // Trimmed in chunks (a quarter over the cap), so rebasing the first request stays rare.
    if (this.records.length > this.maxTicks + Math.ceil(this.maxTicks / 4)) {
      this.records = rebase(this.records, this.records.length - this.maxTicks);
      trimmed = this.ticks();
    }
    this.onRecord(record, trimmed);
  }

  /** The request of this tick as a change against the previous tick's. */
  private requestDelta(): TickRequestDelta {
    const context = this.context();
    const max = this.maxFieldChars;
    if (context === undefined) return { keep: 0, added: [], ephemeral: [] };
    const system = cutText(context.system, max);
    const tools = context.tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: cutText(t.description, max) } : {}),
    }));
    const toolsJson = JSON.stringify(tools);
    const messages = context.messages.map((m) => boundJson(m, max) as unknown as ModelMessage);
    const json = messages.map((m) => JSON.stringify(m));
    const previous = this.previous;
    let keep = 0;
    let drop = 0;
    let keepAfter = 0;
    if (previous !== undefined) {
      keep = sharedRun(previous.json, 0, json, 0);
      // The timeline trimmed its oldest messages: after the shared head (a <User> above the
      // <Timeline>, say) the request goes on where the previous one went on, further along.
      const next = json[keep];
      const at = next === undefined ? -1 : previous.json.indexOf(next, keep + 1);
      if (at > keep) {
        drop = at - keep;
        keepAfter = sharedRun(previous.json, at, json, keep);
      }
    }
    this.previous = { system, tools: toolsJson, messages, json };
    return {
      ...(previous?.system !== system ? { system } : {}),
      ...(previous?.tools !== toolsJson ? { tools } : {}),
      keep,
      ...(keepAfter > 0 ? { drop, keepAfter } : {}),
      added: messages.slice(keep + keepAfter),
      ephemeral: context.ephemeral.map((e) =>
        cutText(`${e.source ?? 'ephemeral'}: ${e.text}`, max),
      ),
    };
  }
}

/** How many of `next`'s entries from `nextFrom` equal `previous`'s from `from` on. */
function sharedRun(
  previous: readonly string[],
  from: number,
  next: readonly string[],
  nextFrom: number,
): number {
  let n = 0;
  while (
    nextFrom + n < next.length &&
    from + n < previous.length &&
    next[nextFrom + n] === previous[from + n]
  ) {
    n++;
  }
  return n;
}

/** An event with its long strings cut (a warning or phase text can be long). */
function boundEvent(event: AgateEvent, max: number): AgateEvent {
  return boundJson(event, max) as unknown as AgateEvent;
}
