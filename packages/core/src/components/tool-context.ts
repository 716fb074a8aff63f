import type { Context } from '@opentelemetry/api';
import type { ModelMessage } from 'ai';
import type { JsonValue } from '../ground/json.js';

/** The second argument of every tool's `execute`. */
export interface ToolExecuteContext {
  /** The id of the call being run. */
  toolCallId: string;
  /** Aborts when the run is aborted; pass it to anything slow. */
  abortSignal: AbortSignal;
  /** The tick this call belongs to (1-based, over the session's life). */
  tick: number;
  /** The timeline as it was when the model was called. */
  messages: readonly ModelMessage[];
  /**
   * What this call saved with `saveProgress` before the run was interrupted (an abort, a wait
   * for approval, another process): present when the call is being continued.
   */
  resume?: JsonValue;
  /**
   * Records how far this call got, in the session state (and so in every snapshot): if the run
   * is interrupted, the next run calls the tool again with it as `resume` instead of the model
   * being asked again. For long, durable work (a sub-agent); most tools never need it.
   */
  saveProgress?(progress: JsonValue): void;
  /** The OpenTelemetry context of this call's span, while the run is traced (for spans of your own). */
  traceContext?: Context;
}
