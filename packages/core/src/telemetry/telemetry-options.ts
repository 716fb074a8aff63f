import type { Context, Tracer } from '@opentelemetry/api';

/**
 * OpenTelemetry spans for a session's runs. On by default, and free when no tracer provider is
 * registered: each run checks once whether its span records, and does no span work if not.
 */
export interface TelemetryOptions {
  /** `false` turns tracing off for this session whatever provider is registered. Default true. */
  enabled?: boolean;
  /**
   * Record the request sent to the model (`gen_ai.input.messages`, `gen_ai.system_instructions`)
   * and each tool call's arguments (`gen_ai.tool.call.arguments`). Default false: prompts hold
   * user data.
   */
  recordInputs?: boolean;
  /**
   * Record what the model answered (`gen_ai.output.messages`), each tool's result
   * (`gen_ai.tool.call.result`) and the text of tool errors. Default false.
   */
  recordOutputs?: boolean;
  /** A tracer of your own; default: `trace.getTracer('@agate/core')` from the global provider. */
  tracer?: Tracer;
  /**
   * The context the run's span starts in (its parent). Default: the active context. A
   * sub-agent's run gets its `invoke_agent` span here, so the nesting holds without a
   * context manager.
   */
  parentContext?: Context;
}
