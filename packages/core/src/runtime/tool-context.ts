import type { ModelMessage } from 'ai';

/** The second argument of every tool's `execute`. */
export interface ToolExecuteContext {
  toolCallId: string;
  /** Aborts when the run is aborted; pass it to anything slow. */
  abortSignal: AbortSignal;
  /** The tick this call belongs to (1-based, over the session's life). */
  tick: number;
  /** The timeline as it was when the model was called. */
  messages: readonly ModelMessage[];
}
