import type { JsonValue } from '../ground/json.js';
import type { UsageTotals } from '../state/session-state.js';

/** A tool call the model asked for in a tick. */
export interface TickToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The result of one tool call in a tick. */
export interface TickToolResult {
  toolCallId: string;
  toolName: string;
  output: JsonValue;
  isError: boolean;
  /** Set when a guard refused the call (`tool:refused`): its `execute` never ran. */
  refusedBy?: string;
  /**
   * What the model sees instead of `output`, when the tool converts its results itself (an AI
   * SDK tool's `toModelOutput`, such as an MCP tool's image): an AI SDK tool-result output.
   */
  modelOutput?: JsonValue;
}

/** What one finished tick did; gates' `activateWhen` / `clearWhen` read this. */
export interface TickResult {
  tick: number;
  toolCalls: TickToolCall[];
  toolResults: TickToolResult[];
  text: string;
  finishReason: string;
  usage: UsageTotals;
}
