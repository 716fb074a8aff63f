import { isThenable, type MaybePromise } from '../../ground/thenable.js';
import { errorMessage } from '../../ground/thrown.js';
import { notAcceptedText } from '../../guard-seam/exit-refusal-text.js';
import type { BeforeModelVerdict, GuardTick } from '../../guard-seam/guard-family.js';
import type { TickResult, TickToolResult } from '../../state/tick-result.js';
import { withReplacedToolResults } from '../../state/update.js';
import type { RuntimeEvent } from '../events.js';
import type { SessionCore } from '../session-core.js';
import type { TickOutcome } from '../session-options.js';
import { exitOutcome, judgeExit } from './attempt-exit.js';

export type ToolResultEvent = Extract<RuntimeEvent, { type: 'tool:result' }>;

/** A call that asked to finish (`Guard.finishTools`): its result waits for the exit's judgement. */
export interface PendingFinish {
  /** The result as the tool gave it (the one in the tick's results). */
  result: TickToolResult;
  /** Its `tool:result` event, not emitted yet. */
  event: ToolResultEvent;
}

/** What a call that asked to finish reads when its exit was never judged (its tick stopped). */
export function notJudgedResult(result: TickToolResult): TickToolResult {
  return refused(
    result,
    notAcceptedText(
      [],
      'the run stopped before this answer was judged; give it again when the run goes on.',
    ),
  );
}

/**
 * The end of a tick whose calls asked to finish (a `final_answer`): the guards' tick end, then
 * the exit judged as for a reply without tool calls, and only then those calls' results: kept
 * when the run completes, else `Not accepted: <each refusing guard's reason>`, rewritten in the
 * committed timeline and the tick's result before the `tool:result` events and `tick:end` go
 * out. So the model, the timeline, the tick log, snapshots, `agate show`, the studio and the UI
 * stream read the same thing. A guard that throws while deciding leaves them `Not accepted`.
 */
export async function endFinishingTick(
  core: SessionCore,
  guardTick: GuardTick,
  result: TickResult,
  finishing: readonly PendingFinish[],
  tickEnd: () => MaybePromise<BeforeModelVerdict>,
): Promise<TickOutcome> {
  let settled = false;
  const settle = (text: string | undefined) => {
    settled = true;
    settleFinishCalls(core, result, finishing, text);
    core.emit({ type: 'tick:end', tick: guardTick.tick, result });
  };
  try {
    const pendingEnd = tickEnd();
    const ended = isThenable(pendingEnd) ? await pendingEnd : pendingEnd;
    if (ended.kind === 'end') {
      settle(
        notAcceptedText(
          [],
          `the run ended ${ended.status} before this answer was judged: ${ended.reason}`,
        ),
      );
      return { done: true, status: ended.status, reason: ended.reason };
    }
    if (!core.guards.finishRequested(guardTick, result)) {
      settle(notAcceptedText([], 'this call did not ask to finish; the run goes on.'));
      return { done: false };
    }
    const judged = judgeExit(core, guardTick);
    const verdict = isThenable(judged) ? await judged : judged;
    settle(
      verdict.kind === 'allow'
        ? undefined
        : notAcceptedText(
            verdict.reasons,
            verdict.kind === 'end' ? 'The run ends blocked (not completed).' : undefined,
          ),
    );
    return exitOutcome(core, guardTick, verdict);
  } catch (error) {
    if (!settled) {
      settled = true;
      settleFinishCalls(
        core,
        result,
        finishing,
        notAcceptedText([], `the answer could not be judged: ${errorMessage(error)}`),
      );
    }
    throw error;
  }
}

/**
 * Writes the judged results: `text` (refused) replaces each one in the tick's result and the
 * committed timeline; `undefined` (accepted) keeps them. Then their events go out, in order.
 */
function settleFinishCalls(
  core: SessionCore,
  result: TickResult,
  finishing: readonly PendingFinish[],
  text: string | undefined,
): void {
  if (text === undefined) {
    for (const pending of finishing) core.emit(pending.event);
    return;
  }
  const written: TickToolResult[] = [];
  for (const pending of finishing) {
    const judged = refused(pending.result, text);
    const at = result.toolResults.indexOf(pending.result);
    if (at >= 0) result.toolResults[at] = judged;
    written.push(judged);
  }
  core.state = withReplacedToolResults(core.state, written);
  for (const judged of written) core.emit(refusedEvent(finishing[0]!.event.tick, judged));
}

/** The `tool:result` event of a result that was not accepted (no cut: the text is bounded). */
export function refusedEvent(tick: number, result: TickToolResult): ToolResultEvent {
  return {
    type: 'tool:result',
    tick,
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    output: result.output,
    isError: true,
  };
}

function refused(result: TickToolResult, text: string): TickToolResult {
  const { modelOutput: _own, ...rest } = result;
  return { ...rest, output: text, isError: true };
}
