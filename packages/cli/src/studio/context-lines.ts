import type { MaterializedTick } from '@agate/core/stores';

type Part = { type?: unknown; [key: string]: unknown };

/**
 * A tick's request as the model saw it, as text lines (what the studio shows and diffs):
 * the system prompt, every message with its parts, the tools offered, and this tick's
 * ephemeral content.
 */
export function contextLines(tick: MaterializedTick): string[] {
  const lines: string[] = ['## system', ...tick.system.split('\n'), '', '## messages'];
  for (const message of tick.messages) {
    const content: unknown = message.content;
    if (typeof content === 'string') {
      lines.push(...prefixed(`[${message.role}] `, content));
      continue;
    }
    for (const part of Array.isArray(content) ? (content as Part[]) : []) {
      lines.push(...prefixed(`[${message.role}] `, partText(part)));
    }
  }
  lines.push('', '## tools');
  for (const tool of tick.tools) lines.push(`${tool.name}: ${tool.description ?? ''}`);
  const ephemeral = tick.record.request?.ephemeral ?? [];
  if (ephemeral.length > 0) {
    lines.push('', '## ephemeral (this tick only)');
    for (const block of ephemeral) lines.push(...block.split('\n'));
  }
  return lines;
}

function partText(part: Part): string {
  switch (part.type) {
    case 'text':
      return String(part.text ?? '');
    case 'reasoning':
      return `(reasoning) ${String(part.text ?? '')}`;
    case 'tool-call':
      return `→ ${String(part.toolName)}(${JSON.stringify(part.input ?? {})}) #${String(part.toolCallId)}`;
    case 'tool-result': {
      const output = part.output as { type?: string; value?: unknown } | undefined;
      const value =
        typeof output?.value === 'string' ? output.value : JSON.stringify(output?.value);
      return `← ${String(part.toolName)} #${String(part.toolCallId)}${output?.type?.startsWith('error') ? ' (error)' : ''}: ${value}`;
    }
    default:
      return `(${String(part.type)})`;
  }
}

function prefixed(prefix: string, text: string): string[] {
  return text.split('\n').map((line, i) => (i === 0 ? prefix + line : `  ${line}`));
}
