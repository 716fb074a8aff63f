import { asSchema, type ModelMessage } from 'ai';
import { isThenable } from '../ground/thenable.js';
import type { CompiledTool } from '../renderer/compiled-context.js';
import { shown } from '../runtime/option-checks.js';
import type { Tokenizer } from './budget-options.js';
import { InvalidContextBudgetError } from './context-budget-errors.js';

/** Role and framing tokens every message costs besides its text (OpenAI documents 3-4). */
export const MESSAGE_OVERHEAD = 4;
/** Framing per tool besides its name, description and schema. */
export const TOOL_OVERHEAD = 8;

/** What a message's tokens are counted on: its text parts, tool calls and tool results. */
export function messageText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  let text = '';
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        text += `${part.text}\n`;
        break;
      case 'tool-call':
        text += `${part.toolName} ${JSON.stringify(part.input) ?? ''}\n`;
        break;
      case 'tool-result': {
        const output = part.output;
        const value = 'value' in output ? output.value : output.type;
        text += `${part.toolName} ${typeof value === 'string' ? value : JSON.stringify(value)}\n`;
        break;
      }
      default:
        text += `${JSON.stringify(part)}\n`;
    }
  }
  return text;
}

interface TimelineEntry {
  tokens: number;
  /** Tokens of every message up to and including this one, in the order they were first seen. */
  through: number;
  /** Messages before this one, and assistant turns up to and including it, in that order. */
  ordinal: number;
  turns: number;
}

const TEXT_CACHE_LIMIT = 4_096;

/**
 * Token counts with caches, one counter per session and tokenizer. Timeline messages are
 * frozen once written, so each is counted once (keyed by the object); a running sum over the
 * timeline makes the tokens of any range of it one subtraction. Texts that repeat every tick
 * (system text, tool descriptions, fixed messages) are counted once per distinct text.
 */
export class TokenCounter {
  private readonly timeline = new WeakMap<object, TimelineEntry>();
  private readonly texts = new Map<string, number>();
  private readonly schemas = new WeakMap<object, number>();

  constructor(readonly tokenizer: Tokenizer) {}

  text(text: string): number {
    if (text === '') return 0;
    let tokens = this.texts.get(text);
    if (tokens === undefined) {
      tokens = this.count(text);
      // Bounded: texts that change every tick (a clock) must not grow the cache forever.
      if (this.texts.size >= TEXT_CACHE_LIMIT) this.texts.clear();
      this.texts.set(text, tokens);
    }
    return tokens;
  }

  /** A message that is rebuilt every render (a fixed `<User>`): cached by its text. */
  message(message: ModelMessage): number {
    const entry = this.timeline.get(message);
    if (entry !== undefined) return entry.tokens;
    return this.text(messageText(message)) + MESSAGE_OVERHEAD;
  }

  /**
   * Counts the messages of a timeline not seen before (only the new ones at its end, each
   * tick) so that `range` is O(1).
   */
  prepare(messages: readonly ModelMessage[]): void {
    let i = messages.length;
    while (i > 0 && !this.timeline.has(messages[i - 1] as object)) i -= 1;
    const previous = i > 0 ? this.timeline.get(messages[i - 1] as object) : undefined;
    let through = previous?.through ?? 0;
    let ordinal = previous !== undefined ? previous.ordinal + 1 : 0;
    let turns = previous?.turns ?? 0;
    for (; i < messages.length; i++) {
      const message = messages[i] as ModelMessage;
      // Counted directly, not through the text cache: the object itself is the cache key.
      const tokens = this.count(messageText(message)) + MESSAGE_OVERHEAD;
      through += tokens;
      if (message.role === 'assistant') turns += 1;
      this.timeline.set(message, { tokens, through, ordinal, turns });
      ordinal += 1;
    }
  }

  /** A prepared timeline message's counts. */
  entry(message: ModelMessage): Readonly<TimelineEntry> {
    return this.timeline.get(message) as TimelineEntry;
  }

  /** Tokens of `messages[from..to)` (after `prepare`). */
  range(messages: readonly ModelMessage[], from: number, to: number): number {
    if (to <= from) return 0;
    const first = this.timeline.get(messages[from] as object) as TimelineEntry;
    const last = this.timeline.get(messages[to - 1] as object) as TimelineEntry;
    return last.through - first.through + first.tokens;
  }

  /** Tokens before `messages[index]` counted from `messages[0]` (for binary search). */
  before(messages: readonly ModelMessage[], index: number): number {
    if (index <= 0) return 0;
    return this.range(messages, 0, index);
  }

  /** A tool as the model sees it: name, description and the JSON Schema of its input. */
  tool(tool: CompiledTool): number {
    return (
      this.text(tool.name) + this.text(tool.description ?? '') + this.schema(tool) + TOOL_OVERHEAD
    );
  }

  private schema(tool: CompiledTool): number {
    const schema = tool.inputSchema;
    if (typeof schema !== 'object' || schema === null) return 0;
    let tokens = this.schemas.get(schema);
    if (tokens === undefined) {
      const json = asSchema(schema).jsonSchema;
      // A schema that resolves asynchronously cannot be counted in a synchronous render.
      tokens = isThenable(json) ? 0 : this.count(JSON.stringify(json));
      this.schemas.set(schema, tokens);
    }
    return tokens;
  }

  private count(text: string): number {
    const tokens = this.tokenizer(text);
    // A broken tokenizer would silently make every message free (NaN) and defeat the budget.
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
      throw new InvalidContextBudgetError(
        `context.tokenizer returned ${shown(tokens)} for a text of ${text.length} characters; ` +
          'it must return a number of tokens >= 0 (for example countTokens from gpt-tokenizer).',
      );
    }
    return Math.ceil(tokens);
  }
}
