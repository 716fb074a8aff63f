import type { JsonValue } from '../ground/json.js';
import type { CompiledTool } from '../renderer/compiled-context.js';
import type { TickToolCall, TickToolResult } from '../state/tick-result.js';

/** What the host still gets when the model saw a cut-down result (in the `tool:result` event). */
export interface ToolOutputTruncation {
  /** Characters of the full result (its JSON text, when it is not a string). */
  originalChars: number;
  /** The whole result, as it would have been stored. */
  fullOutput: JsonValue;
}

/** One tool call as it happened. */
export interface ToolCallOutcome {
  call: TickToolCall;
  /** The rendered tool, when the name matched one. */
  tool?: CompiledTool;
  /** What the model sees (and the timeline records). */
  result: TickToolResult;
  /** True when `execute` was called. False: unknown tool, invalid arguments, or refused. */
  executed: boolean;
  /** The validated arguments (when validation passed). */
  input?: unknown;
  /** What `execute` returned, before it was made JSON (when it returned). */
  output?: unknown;
  /** What `execute` threw (when it threw). */
  error?: unknown;
  /** Set when a guard refused the call: its name. */
  refusedBy?: string;
  /** Set when `result.output` was cut to `maxToolOutputChars`: the full value, for the host. */
  truncated?: ToolOutputTruncation;
}
