import type { ModelMessage } from 'ai';
import { attachRequestForm } from '../runtime/request-messages.js';
import type { TickResult, TickToolResult } from '../runtime/tick-result.js';
import type { JsonValue } from './json.js';
import {
  CALL_SIGNATURES_CAP,
  type SessionState,
  STEP_TOKENS_CAP,
  type UsageTotals,
} from './session-state.js';
import { tailOfTimeline } from './timeline.js';

/** The messages one tick adds to the timeline: the assistant turn, then its tool results. */
export function tickMessages(result: TickResult, reasoning: string): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
  if (reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
  if (result.text !== '') content.push({ type: 'text', text: result.text });
  for (const call of result.toolCalls) {
    content.push({
      type: 'tool-call',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: replayableInput(call.input),
    });
  }
  if (content.length > 0) messages.push({ role: 'assistant', content });
  if (result.toolResults.length > 0) {
    messages.push({ role: 'tool', content: result.toolResults.map(toToolResultPart) });
  }
  return messages;
}

/**
 * Arguments that were not a JSON object (the raw text of malformed JSON) are replayed as `{}`,
 * as the AI SDK does: several providers (Anthropic, Google) reject a tool call whose input is
 * not an object, which would fail every later tick. The tool error already quotes the raw text.
 */
function replayableInput(input: unknown): unknown {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
}

function toToolResultPart(result: TickToolResult) {
  const output = result.isError
    ? typeof result.output === 'string'
      ? { type: 'error-text' as const, value: result.output }
      : { type: 'error-json' as const, value: result.output }
    : typeof result.output === 'string'
      ? { type: 'text' as const, value: result.output }
      : { type: 'json' as const, value: result.output };
  return {
    type: 'tool-result' as const,
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    output,
  };
}

export function addUsage(total: UsageTotals, add: UsageTotals): UsageTotals {
  return {
    inputTokens: total.inputTokens + add.inputTokens,
    outputTokens: total.outputTokens + add.outputTokens,
    totalTokens: total.totalTokens + add.totalTokens,
  };
}

/** Canonical form of a call (sorted keys) so that key order never hides a repeat. */
export function callSignature(toolName: string, input: unknown): string {
  return `${toolName}:${canonicalJson(input)}`;
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, JsonValue>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Applies a finished tick to the (immer) draft. Returns how many messages were trimmed. */
export function commitTick(
  draft: SessionState,
  result: TickResult,
  messages: ModelMessage[],
  options: {
    /** The committed (frozen) timeline; read outside the draft so immer need not proxy it. */
    baseTimeline: readonly ModelMessage[];
    maxTimelineMessages: number;
  },
): number {
  draft.tick = result.tick;
  draft.text = result.text;
  draft.usage = addUsage(draft.usage, result.usage);
  draft.toolCalls += result.toolCalls.length;
  draft.notices = [];
  let dropped = 0;
  // Built outside the draft and frozen before assignment: immer skips frozen values, so a
  // commit costs the new messages, not a walk over the whole (possibly 10,000-message) timeline.
  // `concat`, not a spread: V8 copies a frozen array much faster that way.
  let next: readonly ModelMessage[] = options.baseTimeline.concat(
    messages.map((message) => deepFreeze(attachRequestForm(message))),
  );
  if (next.length > options.maxTimelineMessages) {
    const kept = tailOfTimeline(next, options.maxTimelineMessages);
    dropped = next.length - kept.length;
    next = kept;
  }
  draft.timeline = Object.freeze(next) as ModelMessage[];
  return dropped;
}

/** The ContinueGate's bookkeeping for a finished tick (kept whether or not one is mounted). */
export function commitProgress(
  draft: SessionState,
  tokens: number,
  options: {
    /** The committed progress, read outside the draft so immer need not proxy its arrays. */
    baseProgress: Readonly<SessionState['progress']>;
    elapsedMs: number;
    rework: boolean;
    /** `callSignature` of each of the tick's calls, in order (computed once per tick). */
    signatures: readonly string[];
  },
): void {
  const base = options.baseProgress;
  const progress = draft.progress;
  progress.stepNumber += 1;
  progress.elapsedMs += options.elapsedMs;
  if (options.rework) progress.reworkCount += 1;
  progress.stepTokens = Object.freeze(
    [...base.stepTokens, tokens].slice(-STEP_TOKENS_CAP),
  ) as number[];
  progress.callSignatures = Object.freeze(
    [...base.callSignatures, ...options.signatures].slice(-CALL_SIGNATURES_CAP),
  ) as string[];
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
