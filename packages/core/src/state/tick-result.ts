import type { JsonValue } from '../ground/json.js';
import type { UsageTotals } from '../state/session-state.js';

/** A tool call the model asked for in a tick. */
export interface TickToolCall {
  /** The call's id. */
  toolCallId: string;
  /** The tool called. */
  toolName: string;
  /** Its arguments, as the model gave them. */
  input: unknown;
}

/** The result of one tool call in a tick. */
export interface TickToolResult {
  /** The id of the call it answers. */
  toolCallId: string;
  /** The tool called. */
  toolName: string;
  /** What the model sees as the result. */
  output: JsonValue;
  /** The call failed, or a guard refused it. */
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
  /** The tick's number in the session. */
  tick: number;
  /** The tool calls the model asked for. */
  toolCalls: TickToolCall[];
  /** Their results, refusals included. */
  toolResults: TickToolResult[];
  /** The model's text. */
  text: string;
  /** Why the model stopped. */
  finishReason: string;
  /** Tokens the tick's model call used. */
  usage: UsageTotals;
}
