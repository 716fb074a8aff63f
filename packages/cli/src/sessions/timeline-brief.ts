import { asText, preview } from '../format/table.js';

/**
 * One line per timeline message for `agate show`. The timeline comes from a file, so every
 * part is read defensively: an unexpected shape is shown as what it is, never a crash.
 */
export function briefMessage(message: unknown, width = 100): string {
  if (!isRecord(message)) return `?  ${preview(asText(message), width)}`;
  const role = typeof message.role === 'string' ? message.role : '?';
  const parts = typeof message.content === 'string' ? [message.content] : listOf(message.content);
  const pieces = parts.map(briefPart).filter((p) => p !== '');
  return `${role.padEnd(9)}  ${preview(pieces.join('  '), width)}`;
}

function briefPart(part: unknown): string {
  if (typeof part === 'string') return quote(part);
  if (!isRecord(part)) return asText(part);
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' && part.text.trim() !== '' ? quote(part.text) : '';
    case 'reasoning':
      return '(reasoning)';
    case 'tool-call':
      return `→ ${String(part.toolName)} ${asText(part.input)}`;
    case 'tool-result': {
      const output = isRecord(part.output) ? part.output : {};
      const failed = output.type === 'error-text' || output.type === 'error-json';
      return `${failed ? '✗' : '←'} ${String(part.toolName)}: ${asText(output.value)}`;
    }
    default:
      return `(${String(part.type)})`;
  }
}

function quote(text: string): string {
  return `"${text.trim()}"`;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
