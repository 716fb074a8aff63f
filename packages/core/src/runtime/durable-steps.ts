import type { JsonValue } from '../ground/json.js';
import { errorMessage } from '../ground/thrown.js';
import type { CompiledTool } from '../renderer/compiled-context.js';
import type { TickToolCall, TickToolResult } from '../state/tick-result.js';
import { atStep } from './fault.js';
import type { ModelTurn } from './model-call.js';
import { toJsonValue } from './tool-execution.js';
import type { ToolOutputTruncation } from './tool-limits.js';
import type { ToolCallOutcome } from './tool-outcome.js';

/**
 * What a tool call's step records: plain JSON, so a durable engine can store it and hand it
 * back after a crash instead of running the tool again.
 */
export interface ToolStepRecord {
  /** The call's result. */
  result: TickToolResult;
  /** True when `execute` was called. */
  executed: boolean;
  /** The validated arguments, as JSON. */
  input?: JsonValue;
  /** What `execute` threw, by name and message (the value itself is not JSON). */
  error?: { name: string; message: string };
  /** Set when the output was cut to `maxToolOutputChars` (already JSON). */
  truncated?: ToolOutputTruncation;
}

/**
 * `SessionOptions.steps`: runs each tick's model call and each call of the agent's tools through
 * a durable engine (`@agate/dbos` makes each a DBOS step). Each hook must call `run` at most once
 * and return what it returned, or the answer it recorded for this call in an earlier attempt of
 * the same run. The tick loop keeps its order and its guards; only these two calls are wrapped.
 * Agate's own runtime tools (they only change the session's state) run in every attempt.
 */
export interface DurableSteps {
  /** Runs one tick's model call (`run`) as a durable step, or returns its recorded result. */
  model?(run: () => Promise<ModelTurn>, info: { tick: number }): Promise<ModelTurn>;
  /** Runs one tool call (`run`) as a durable step, or returns its recorded result. */
  tool?(
    run: () => Promise<ToolStepRecord>,
    info: { tick: number; toolCallId: string; toolName: string },
  ): Promise<ToolStepRecord>;
}

/** The model call of one tick, through `steps.model` when there is one. */
export function modelStep(
  steps: DurableSteps | undefined,
  tick: number,
  run: () => Promise<ModelTurn>,
): Promise<ModelTurn> {
  if (steps?.model === undefined) return run();
  // A failure of the engine itself (its database) is reported at the step it wrapped.
  return steps.model(run, { tick }).catch((error: unknown) => {
    throw atStep(error, 'model call');
  });
}

/**
 * One tool call through `steps.tool`. The live outcome is kept when the call ran here (guards
 * judge the raw output); a recorded one is rebuilt from its JSON record.
 */
export function toolStep(
  steps: DurableSteps | undefined,
  tick: number,
  call: TickToolCall,
  tools: ReadonlyMap<string, CompiledTool>,
  run: () => Promise<ToolCallOutcome>,
): Promise<ToolCallOutcome> {
  // Not durable (as a rule): the call's own promise, with no async layer of its own. A runtime
  // tool (submit_checkpoint, set_knob, final_answer, the todo tools) is not a step either: its
  // whole effect is on the session's own state, which a replay rebuilds only by calling it
  // again; a recorded answer would leave the replayed session without the change (a checkpoint
  // never submitted) and send the replay down another path than the recorded run took.
  if (steps?.tool === undefined || tools.get(call.toolName)?.source === 'runtime') {
    try {
      return run();
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return durableToolStep(steps as Required<Pick<DurableSteps, 'tool'>>, tick, call, tools, run);
}

async function durableToolStep(
  steps: Required<Pick<DurableSteps, 'tool'>>,
  tick: number,
  call: TickToolCall,
  tools: ReadonlyMap<string, CompiledTool>,
  run: () => Promise<ToolCallOutcome>,
): Promise<ToolCallOutcome> {
  let live: ToolCallOutcome | undefined;
  const record = await steps
    .tool(
      async () => {
        live = await run();
        return toStepRecord(live);
      },
      { tick, toolCallId: call.toolCallId, toolName: call.toolName },
    )
    .catch((error: unknown) => {
      throw atStep(error, 'tool');
    });
  return live ?? fromStepRecord(record, call, tools);
}

export function toStepRecord(outcome: ToolCallOutcome): ToolStepRecord {
  return {
    result: outcome.result,
    executed: outcome.executed,
    ...(outcome.input !== undefined ? { input: toJsonValue(outcome.input) } : {}),
    ...(outcome.error !== undefined
      ? {
          error: {
            name: outcome.error instanceof Error ? outcome.error.name : 'Error',
            message: errorMessage(outcome.error),
          },
        }
      : {}),
    ...(outcome.truncated !== undefined ? { truncated: outcome.truncated } : {}),
  };
}

export function fromStepRecord(
  record: ToolStepRecord,
  call: TickToolCall,
  tools: ReadonlyMap<string, CompiledTool>,
): ToolCallOutcome {
  const tool = tools.get(call.toolName);
  const outcome: ToolCallOutcome = {
    call,
    ...(tool !== undefined ? { tool } : {}),
    result: record.result,
    executed: record.executed,
    ...(record.input !== undefined ? { input: record.input } : {}),
  };
  if (record.error !== undefined) {
    const error = new Error(record.error.message);
    error.name = record.error.name;
    outcome.error = error;
  } else if (record.executed && !record.result.isError) {
    // The JSON the tool's output became: what a guard judging the output sees after a recovery.
    outcome.output = record.truncated?.fullOutput ?? record.result.output;
  }
  if (record.truncated !== undefined) outcome.truncated = record.truncated;
  return outcome;
}
