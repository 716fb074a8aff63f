import type { ModelMessage } from 'ai';
import type { UsageTotals } from '../state/session-state.js';
import type { TickResult, TickToolCall, TickToolResult } from '../state/tick-result.js';

/** How many finished ticks a session keeps for its guards. */
export const RECENT_TICKS_CAP = 50;

type AssistantContent = Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>;
type ToolContent = Extract<ModelMessage, { role: 'tool' }>['content'];

/**
 * A finished tick kept by reference to the timeline messages it wrote, instead of copies of its
 * calls and results: about a third of a `TickResult`'s heap (issue 51 item 3; a session keeps
 * its recent ticks while idle).
 */
class CompactTick {
  constructor(
    readonly tick: number,
    readonly text: string,
    readonly finishReason: string,
    readonly usage: UsageTotals,
    /** The assistant message's parts (its tool calls among them), when it wrote one. */
    readonly calls: AssistantContent | undefined,
    /** The tool message's parts, one per result, when it wrote one. */
    readonly results: ToolContent | undefined,
  ) {}

  expand(): TickResult {
    const toolCalls: TickToolCall[] = [];
    for (const part of this.calls ?? []) {
      if (part.type === 'tool-call') {
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      }
    }
    const toolResults: TickToolResult[] = [];
    for (const part of this.results ?? []) {
      if (part.type !== 'tool-result') continue;
      const output = part.output as { type: string; value: TickToolResult['output'] };
      toolResults.push({
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: output.value,
        isError: output.type === 'error-text' || output.type === 'error-json',
      });
    }
    return {
      tick: this.tick,
      toolCalls,
      toolResults,
      text: this.text,
      finishReason: this.finishReason,
      usage: this.usage,
    };
  }
}

/**
 * The session's finished ticks, oldest first, capped: what `GuardTick.recentTicks` shows.
 * During a run they are whole `TickResult`s in one array (guards read it every tick and see it
 * grow); between runs only their compact records stay, and the array is made again from them
 * the first time the next run reads it.
 */
export class RecentTicks {
  private readonly records: (CompactTick | TickResult)[] = [];
  private expanded: TickResult[] | undefined;

  constructor(private readonly cap: number) {}

  /** The ticks as `TickResult`s: the same array until `release()`, growing with `add`. */
  get list(): TickResult[] {
    this.expanded ??= this.records.map((r) => (r instanceof CompactTick ? r.expand() : r));
    return this.expanded;
  }

  /** Adds a finished tick; `messages` are the ones it wrote to the timeline (frozen there). */
  add(result: TickResult, messages: readonly ModelMessage[]): void {
    this.records.push(compact(result, messages) ?? result);
    if (this.records.length > this.cap) this.records.shift();
    const expanded = this.expanded;
    if (expanded !== undefined) {
      expanded.push(result);
      if (expanded.length > this.cap) expanded.shift();
    }
  }

  /** Drops the expanded array (the session goes idle); the records stay. */
  release(): void {
    this.expanded = undefined;
  }
}

/**
 * The tick as a record over its messages, or undefined when the messages cannot give back the
 * very same result (input that was not an object and is replayed as `{}`, a refusal, a tool's
 * own model output, extra fields): such a tick is kept whole.
 */
function compact(result: TickResult, messages: readonly ModelMessage[]): CompactTick | undefined {
  let calls: AssistantContent | undefined;
  let results: ToolContent | undefined;
  for (const message of messages) {
    if (message.role === 'assistant' && typeof message.content !== 'string') {
      calls = message.content;
    } else if (message.role === 'tool') {
      results = message.content;
    }
  }
  let i = 0;
  for (const part of calls ?? []) {
    if (part.type !== 'tool-call') continue;
    const call = result.toolCalls[i++];
    if (
      call === undefined ||
      call.input !== part.input ||
      call.toolCallId !== part.toolCallId ||
      call.toolName !== part.toolName ||
      Object.keys(call).length !== 3
    ) {
      return undefined;
    }
  }
  if (i !== result.toolCalls.length) return undefined;
  const parts = results ?? [];
  if (parts.length !== result.toolResults.length) return undefined;
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    const r = result.toolResults[k]!;
    if (part.type !== 'tool-result') return undefined;
    const output = part.output as { type: string; value?: unknown };
    const isError = output.type === 'error-text' || output.type === 'error-json';
    if (
      output.value !== r.output ||
      isError !== r.isError ||
      part.toolCallId !== r.toolCallId ||
      part.toolName !== r.toolName ||
      Object.keys(r).length !== 4
    ) {
      return undefined;
    }
  }
  return new CompactTick(
    result.tick,
    result.text,
    result.finishReason,
    result.usage,
    calls,
    results,
  );
}
