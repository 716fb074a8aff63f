import type { ModelMessage } from 'ai';
import type { TickToolCall } from '../state/tick-result.js';

/**
 * Messages in the shape of the GenAI semantic conventions' `gen_ai.input.messages` /
 * `gen_ai.output.messages` JSON schemas: `{ role, parts: [{ type, ... }] }`. Recorded only when
 * the user turns recording on; stored as JSON strings (span attributes cannot nest).
 */
type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; result: unknown }
  | { type: string; [key: string]: unknown };

interface SemconvMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

/** The request messages (`toRequestMessages` of the compiled context) as semconv JSON. */
export function inputMessages(messages: readonly ModelMessage[]): string {
  return JSON.stringify(messages.map(toSemconv));
}

/** The system prompt as `gen_ai.system_instructions` JSON. */
export function systemInstructions(system: string): string {
  return JSON.stringify([{ type: 'text', content: system }]);
}

/** One model reply as `gen_ai.output.messages` JSON. */
export function outputMessages(reply: {
  text: string;
  reasoning: string;
  toolCalls: readonly TickToolCall[];
  finishReason: string;
}): string {
  const parts: Part[] = [];
  if (reply.reasoning !== '') parts.push({ type: 'reasoning', content: reply.reasoning });
  if (reply.text !== '') parts.push({ type: 'text', content: reply.text });
  for (const call of reply.toolCalls) {
    parts.push({
      type: 'tool_call',
      id: call.toolCallId,
      name: call.toolName,
      arguments: call.input,
    });
  }
  const message: SemconvMessage = {
    role: 'assistant',
    parts,
    finish_reason: finishReason(reply.finishReason),
  };
  return JSON.stringify([message]);
}

/**
 * AI SDK finish reasons in the conventions' spelling (`tool-calls` → `tool_call`,
 * `content-filter` → `content_filter`); others (`stop`, `length`, `error`, `other`) as they are.
 */
export function finishReason(reason: string): string {
  if (reason === 'tool-calls') return 'tool_call';
  return reason.replaceAll('-', '_');
}

function toSemconv(message: ModelMessage): SemconvMessage {
  if (typeof message.content === 'string') {
    return { role: message.role, parts: [{ type: 'text', content: message.content }] };
  }
  const parts = message.content as ReadonlyArray<{ type: string } & Record<string, unknown>>;
  return { role: message.role, parts: parts.map(toPart) };
}

function toPart(part: { type: string } & Record<string, unknown>): Part {
  switch (part.type) {
    case 'text':
      return { type: 'text', content: String(part.text ?? '') };
    case 'reasoning':
      return { type: 'reasoning', content: String(part.text ?? '') };
    case 'tool-call':
      return {
        type: 'tool_call',
        id: String(part.toolCallId),
        name: String(part.toolName),
        arguments: part.input,
      };
    case 'tool-result': {
      const output = part.output as { value?: unknown } | undefined;
      return { type: 'tool_call_response', id: String(part.toolCallId), result: output?.value };
    }
    default:
      // Files, images, approvals: their kind, not their bytes.
      return { type: part.type };
  }
}
