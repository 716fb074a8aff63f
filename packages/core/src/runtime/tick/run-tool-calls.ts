import type { ToolExecuteContext } from '../../components/tool-context.js';
import { isThenable } from '../../ground/thenable.js';
import type { GuardTick, ReleasedCall, ToolCallOutcome } from '../../guard-seam/guard-family.js';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import type { TickToolCall, TickToolResult } from '../../state/tick-result.js';
import { withToolResults } from '../../state/update.js';
import { toolStep } from '../durable-steps.js';
import { InflightRecorder, type InflightTick, ToolSuspended } from '../inflight.js';
import type { ModelTurn } from '../model-call.js';
import type { SessionCore } from '../session-core.js';
import { runToolBatch } from '../tool-batch.js';
import { toolIndexOf } from '../tool-index.js';
import { runLimitedToolCall, truncationOf } from '../tool-limits.js';
import {
  notJudgedResult,
  type PendingFinish,
  refusedEvent,
  type ToolResultEvent,
} from './finish-calls.js';

/** Work (ms of wall time) after which the tick loop lets the event loop turn (signals, I/O). */
const YIELD_AFTER_MS = 1;
const ALLOW = { kind: 'allow' } as const;

/**
 * The response's tool calls (see runtime/tool-batch.ts for the order): each judged by the
 * guards, run within its limits, and recorded. A call that suspends (a sub-agent waiting for
 * approval) leaves the tick uncommitted, its record in the state for the next run; a call a
 * guard holds (a person must approve it) gets no result this tick.
 */
export async function runToolCalls(
  core: SessionCore,
  guardTick: GuardTick,
  turn: ModelTurn,
  tools: ReadonlyMap<string, CompiledTool>,
  resumed: InflightTick | undefined,
): Promise<{ results: TickToolResult[]; finishing: PendingFinish[]; suspended?: ToolSuspended }> {
  const { tick: tickNo } = guardTick;
  // Calls that wait on I/O (an MCP server, a child process) turn the event loop themselves:
  // noted, so that their results need no turn of their own (finishToolCall).
  if (!core.turnNoted) {
    core.turnNoted = true;
    setImmediate(core.noteTurn);
  }
  const inflight = new InflightRecorder(tickNo, turn, (recipe) => core.update(recipe), resumed);
  const results: TickToolResult[] = [];
  const finishing: PendingFinish[] = [];
  let suspended: ToolSuspended | undefined;
  type Ran =
    | ToolCallOutcome
    | { suspended: ToolSuspended }
    | { finished: TickToolResult }
    | { held: true };
  await runToolBatch<TickToolCall, Ran>(turn.toolCalls, {
    concurrency: (call) => {
      if (inflight.finished(call.toolCallId) !== undefined) return undefined;
      const limit = tools.get(call.toolName)?.concurrency;
      return limit === undefined ? undefined : { key: call.toolName, limit };
    },
    start: async (call) => {
      const finished = inflight.finished(call.toolCallId);
      if (finished !== undefined) return { finished };
      core.emit({ type: 'tool:call', tick: tickNo, ...call });
      const saved = inflight.saved(call.toolCallId);
      try {
        const outcome = await startToolCall(core, guardTick, call, tools, undefined, {
          ...(saved !== undefined ? { resume: saved } : {}),
          saveProgress: (progress) => inflight.saveProgress(call.toolCallId, progress),
        });
        return outcome ?? { held: true };
      } catch (error) {
        if (ToolSuspended.isInstance(error)) return { suspended: error };
        throw error;
      }
    },
    finish: async (_call, ran) => {
      if ('finished' in ran) {
        results.push(ran.finished);
        return;
      }
      if ('suspended' in ran) {
        suspended ??= ran.suspended;
        return;
      }
      if ('held' in ran) return;
      const result = await finishToolCall(core, guardTick, ran, finishing);
      // A call that asks to finish is recorded as not judged: a tick taken up again from its
      // record does not judge it (its guards did not see it), so it must not read as accepted.
      inflight.recordResult(
        finishing.some((f) => f.result === result) ? notJudgedResult(result) : result,
      );
      results.push(result);
    },
  });
  if (suspended !== undefined) {
    inflight.keep();
    // The tick stops here, uncommitted: its answers were not judged, and say so.
    for (const pending of finishing)
      core.emit(refusedEvent(tickNo, notJudgedResult(pending.result)));
    return { results, finishing: [], suspended };
  }
  inflight.clear();
  return { results, finishing };
}

/** Released held calls: run (or answered) in order, their results put in the timeline. */
export async function runReleasedCalls(
  core: SessionCore,
  guardTick: GuardTick,
  released: ReleasedCall[],
): Promise<void> {
  const tools = toolIndexOf(guardTick.context.tools).byName;
  const results: TickToolResult[] = [];
  for (const { call, answer } of released) {
    const outcome = await startToolCall(core, guardTick, call, tools, answer);
    if (outcome !== undefined) results.push(await finishToolCall(core, guardTick, outcome));
  }
  if (results.length > 0) core.state = withToolResults(core.state, results);
}

/**
 * One tool call through the guards, up to its execution: refused (the guard's message), held
 * (undefined: no result this tick), answered (`answer`, a released call a person denied) or
 * run within the limits. This is where a tool call runs: `runLimitedToolCall` validates its
 * input and calls `execute` (runtime/tool-limits.ts, runtime/tool-execution.ts).
 */
async function startToolCall(
  core: SessionCore,
  guardTick: GuardTick,
  call: TickToolCall,
  tools: ReadonlyMap<string, CompiledTool>,
  answer?: ReleasedCall['answer'],
  extra?: Pick<ToolExecuteContext, 'resume' | 'saveProgress'>,
): Promise<ToolCallOutcome | undefined> {
  const { tick: tickNo, context, signal } = guardTick;
  const { toolCallId, toolName } = call;
  const pendingVerdict = answer === undefined ? core.guards.beforeToolCall(guardTick, call) : ALLOW;
  const verdict = isThenable(pendingVerdict) ? await pendingVerdict : pendingVerdict;
  if (verdict.kind === 'hold') {
    core.emit({
      type: 'tool:held',
      tick: tickNo,
      toolCallId,
      toolName,
      input: call.input,
      by: verdict.by,
      reason: verdict.reason,
    });
    return undefined;
  }
  if (answer !== undefined) {
    const tool = tools.get(toolName);
    return {
      call,
      ...(tool !== undefined ? { tool } : {}),
      result: { toolCallId, toolName, output: answer.output, isError: answer.isError },
      executed: false,
    };
  }
  if (verdict.kind === 'refuse') {
    core.emit({
      type: 'tool:refused',
      tick: tickNo,
      toolCallId,
      toolName,
      by: verdict.by,
      message: verdict.message,
    });
    const result = {
      toolCallId,
      toolName,
      output: verdict.message,
      isError: true,
      refusedBy: verdict.by,
    };
    return { call, result, executed: false, refusedBy: verdict.by };
  }
  const traceContext = core.tracing.toolContext(toolCallId);
  return toolStep(core.options.steps, tickNo, call, tools, () =>
    core.tracing.tool(runLimitedToolCall)(call, tools, core.limits, {
      toolCallId,
      abortSignal: signal,
      tick: tickNo,
      messages: context.messages,
      ...extra,
      ...(traceContext !== undefined ? { traceContext } : {}),
    }),
  );
}

/**
 * After a call ran (or was refused or answered): the guards see it, its result is emitted. A
 * call that asks to finish (`final_answer`) goes to `finishing` instead of being emitted: its
 * result is written once the exit is judged (finish-calls.ts).
 */
async function finishToolCall(
  core: SessionCore,
  guardTick: GuardTick,
  outcome: ToolCallOutcome,
  finishing?: PendingFinish[],
): Promise<TickToolResult> {
  // A tool that blocked the event loop (synchronous work) held back signals such as Ctrl-C;
  // one turn of the loop lets their handlers run, so an abort lands before the next step.
  // Only after a millisecond of work since the last turn: a turn per quick call is time
  // the tick pays for nothing, and a signal waits at most that long. A call that waited on
  // I/O let the loop turn while it waited (noted in runToolCalls), so it needs none either.
  if (performance.now() - core.lastYield >= YIELD_AFTER_MS) {
    await yieldToEventLoop();
    core.lastYield = performance.now();
  }
  guardTick.signal.throwIfAborted();
  const after = core.guards.afterToolCall(guardTick, outcome);
  if (isThenable(after)) await after;
  const event: ToolResultEvent = {
    type: 'tool:result',
    tick: guardTick.tick,
    ...outcome.result,
    ...truncationOf(outcome),
  };
  if (finishing !== undefined && core.guards.asksToFinish(outcome)) {
    finishing.push({ result: outcome.result, event });
  } else {
    core.emit(event);
  }
  return outcome.result;
}

/** Resolves after one turn of the event loop (its I/O and signal handlers have run). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
