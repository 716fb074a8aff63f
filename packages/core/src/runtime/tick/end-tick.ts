import type { MaybePromise } from '../../ground/thenable.js';
import type { BeforeModelVerdict, GuardTick } from '../../guard-seam/guard-family.js';
import type { TickResult, TickToolResult } from '../../state/tick-result.js';
import { callSignature, commitTick, tickMessages } from '../../state/update.js';
import { isCutOff } from '../endings.js';
import type { ModelTurn } from '../model-call.js';
import type { SessionCore } from '../session-core.js';

/** What the tick did: the model's turn and its tool calls' results. */
export function tickResult(
  tickNo: number,
  turn: ModelTurn,
  toolResults: TickToolResult[],
): TickResult {
  // Copies at their exact length: arrays grown by `push` keep room for 17 entries, and a session
  // keeps its recent ticks while idle (issue 51 item 3: ~170 bytes a tick).
  return {
    tick: tickNo,
    toolCalls: turn.toolCalls.slice(),
    toolResults: toolResults.slice(),
    text: turn.text,
    finishReason: turn.finishReason,
    usage: turn.usage,
  };
}

/**
 * Commits the tick to the state (its messages in the timeline, capped) and to the recent ticks.
 * Returns the tick as recorded: a reply that continues one cut off by the output limit is
 * recorded whole (the cut-off text and what follows it).
 */
export function recordTick(
  core: SessionCore,
  result: TickResult,
  reasoning: ModelTurn['reasoning'],
): TickResult {
  const messages = tickMessages(result, reasoning);
  const committed = commitTick(core.state, result, messages, {
    maxTimelineMessages: core.options.maxTimelineMessages ?? 5_000,
  });
  core.state = committed.state;
  const { dropped } = committed;
  if (dropped > 0) core.emit({ type: 'timeline:trimmed', tick: result.tick, dropped });
  core.lastFinishReason = result.finishReason;
  const previous = core.recentTicks.at(-1);
  let recorded = result;
  if (previous !== undefined && isCutOff(previous) && result.toolCalls.length === 0) {
    // A continuation: the answer is the cut-off text and what follows it.
    const whole = previous.text + result.text;
    core.update((draft) => {
      draft.text = whole;
    });
    recorded = { ...result, text: whole };
  }
  core.ticks.add(recorded, messages);
  return recorded;
}

/**
 * The guards' tick end: each family updates its own state from what the tick did (activates or
 * clears gates, trips budgets, records receipts) and may end the run. Not `async`: the tick
 * awaits only when a family answered with a promise.
 */
export function guardsAtTickEnd(
  core: SessionCore,
  guardTick: GuardTick,
  result: TickResult,
  startedAt: number,
  finishing = false,
): MaybePromise<BeforeModelVerdict> {
  // Computed at most once per tick, and only if a family compares calls (repeats, rework).
  let signatures: readonly string[] | undefined;
  return core.guards.tickEnd(guardTick, result, {
    elapsedMs: performance.now() - startedAt,
    finishing,
    get signatures() {
      signatures ??= result.toolCalls.map((c) => callSignature(c.toolName, c.input));
      return signatures;
    },
  });
}
