import { isThenable } from '../../ground/thenable.js';
import type { GuardTick } from '../../guard-seam/guard-family.js';
import { atTick } from '../fault.js';
import { inflightOf } from '../inflight.js';
import type { ModelTurn } from '../model-call.js';
import type { SessionCore } from '../session-core.js';
import type { TickOutcome } from '../session-options.js';
import { toolIndexOf } from '../tool-index.js';
import { askModel, modelAnswered } from './ask-model.js';
import { tickOutcome } from './attempt-exit.js';
import { guardsAtTickEnd, recordTick, tickResult } from './end-tick.js';
import { endFinishingTick } from './finish-calls.js';
import { renderContext } from './render-context.js';
import { runReleasedCalls, runToolCalls } from './run-tool-calls.js';

/**
 * One tick, atomic: an abort, or a failure before the commit, leaves the state of the last
 * completed tick. A failure after the commit (a guard's tick end) keeps the committed tick.
 */
export async function runAtomicTick(core: SessionCore, signal: AbortSignal): Promise<TickOutcome> {
  const before = core.state;
  try {
    return await runTick(core, signal);
  } catch (error) {
    // A tick whose calls saved progress (a sub-agent) keeps its in-flight record instead, so
    // that the next run continues those calls rather than starting them over.
    if (
      (signal.aborted || core.state.tick === before.tick) &&
      inflightOf(core.state, before.tick + 1) === undefined
    ) {
      core.state = before;
    }
    throw signal.aborted ? error : atTick(error, before.tick + 1);
  }
}

/**
 * The tick, stage by stage (docs/architecture.md): render → the guards before the model call →
 * the model call → the tool calls → commit and the guards' tick end → the exit attempt. Each
 * stage is a function of its own in this folder; this one only runs them in order.
 */
async function runTick(core: SessionCore, signal: AbortSignal): Promise<TickOutcome> {
  const tickNo = core.state.tick + 1;
  const startedAt = performance.now();
  core.emit({ type: 'tick:start', tick: tickNo });

  // 1. Render (again when a component's connection opened, or held calls were answered).
  let context = renderContext(core);
  // A component's connection opens at the first tick that renders it; its tools then render.
  if (core.resources.active) {
    const changed = core.resources.prepare(signal);
    if (typeof changed === 'boolean' ? changed : await changed) context = renderContext(core);
  }
  let guardTick: GuardTick = { tick: tickNo, context, signal, recentTicks: core.recentTicks };
  const released = core.guards.releaseHeldCalls(guardTick);
  if (released.length > 0) {
    // Calls of an earlier response a person has decided on: their results go in first.
    await runReleasedCalls(core, guardTick, released);
    context = renderContext(core);
    guardTick = { tick: tickNo, context, signal, recentTicks: core.recentTicks };
  }

  // 2. The model call, unless a guard ends the run first. A tick interrupted while its tools
  // ran (a sub-agent waiting for approval, an abort) goes on from its record: the model is not
  // asked again.
  const resumed = inflightOf(core.state, tickNo);
  let turn: ModelTurn;
  if (resumed !== undefined) {
    turn = resumed.response;
  } else {
    const pendingVerdict = core.guards.beforeModelCall(guardTick);
    const verdict = isThenable(pendingVerdict) ? await pendingVerdict : pendingVerdict;
    if (verdict.kind === 'end')
      return { done: true, status: verdict.status, reason: verdict.reason };
    turn = await askModel(core, guardTick);
    modelAnswered(core, tickNo, turn);
  }

  // 3. The tool calls.
  const tools = toolIndexOf(context.tools).byName;
  const phase = await runToolCalls(core, guardTick, turn, tools, resumed);
  if (phase.suspended !== undefined) {
    return { done: true, status: phase.suspended.status, reason: phase.suspended.reason };
  }

  // 4. Commit, and the guards' tick end.
  const result = tickResult(tickNo, turn, phase.results);
  const recorded = recordTick(core, result, turn.reasoning);
  if (phase.finishing.length > 0) {
    // A call asked to finish (a final answer): its result is written once the exit is judged.
    return endFinishingTick(core, guardTick, result, phase.finishing, () =>
      guardsAtTickEnd(core, guardTick, result, startedAt, true),
    );
  }
  const pendingEnd = guardsAtTickEnd(core, guardTick, result, startedAt);
  const ended = isThenable(pendingEnd) ? await pendingEnd : pendingEnd;
  core.emit({ type: 'tick:end', tick: tickNo, result });
  if (ended.kind === 'end') return { done: true, status: ended.status, reason: ended.reason };

  // 5. The exit attempt, when the model is trying to finish.
  return tickOutcome(core, guardTick, result, recorded);
}
