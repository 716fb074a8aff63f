import type { ConversationMessage, ConversationPart } from './api-types.js';

type Part = { readonly [key: string]: unknown };

/**
 * A stored timeline as the page shows it: each message with its text, reasoning, tool calls
 * and tool results as plain text. Nothing is cut (a conversation is read to understand a run);
 * the page puts long parts in boxes that scroll. The timeline comes from a store: every part is
 * checked, and one of a shape the studio does not know is named, not dropped.
 */
export function conversationOf(timeline: unknown): ConversationMessage[] {
  if (!Array.isArray(timeline)) return [];
  return timeline.map((message: unknown): ConversationMessage => {
    const fields = (typeof message === 'object' && message !== null ? message : {}) as Part;
    const role = typeof fields.role === 'string' ? fields.role : '?';
    const content = fields.content;
    if (typeof content === 'string') return { role, parts: [{ kind: 'text', text: content }] };
    const parts = Array.isArray(content) ? content : [];
    return { role, parts: parts.map(partOf) };
  });
}

function partOf(part: unknown): ConversationPart {
  const p = (typeof part === 'object' && part !== null ? part : {}) as Part;
  switch (p.type) {
    case 'text':
      return { kind: 'text', text: String(p.text ?? '') };
    case 'reasoning':
      return { kind: 'reasoning', text: String(p.text ?? '') };
    case 'tool-call':
      return {
        kind: 'tool-call',
        toolName: String(p.toolName ?? '?'),
        callId: String(p.toolCallId ?? '?'),
        input: jsonText(p.input ?? {}),
      };
    case 'tool-result': {
      const output = (typeof p.output === 'object' && p.output !== null ? p.output : {}) as Part;
      const type = typeof output.type === 'string' ? output.type : '';
      return {
        kind: 'tool-result',
        toolName: String(p.toolName ?? '?'),
        callId: String(p.toolCallId ?? '?'),
        output:
          typeof output.value === 'string'
            ? output.value
            : output.value === undefined
              ? `(${type || 'no output'})`
              : jsonText(output.value),
        isError: type.startsWith('error') || type === 'execution-denied',
      };
    }
    default:
      return { kind: 'other', type: String(p.type ?? '?') };
  }
}

/** Indented JSON of untrusted data (a model's input, a tool's output), whole. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}
