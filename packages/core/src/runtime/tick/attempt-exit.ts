import type { MaybePromise } from '../../ground/thenable.js';
import { isThenable } from '../../ground/thenable.js';
import type { ExitVerdict, GuardTick } from '../../guard-seam/guard-family.js';
import type { RunStatus } from '../../state/session-state.js';
import type { TickResult } from '../../state/tick-result.js';
import { judgeReply } from '../endings.js';
import type { SessionCore } from '../session-core.js';
import type { TickOutcome } from '../session-options.js';

/**
 * The tick's last stage: what its reply means. Tool calls: the loop goes on (unless one asks to
 * finish, a final answer). A reply without tool calls is judged first (an empty reply is asked
 * again, a cut-off one continued, a filtered one ends the run), and a whole answer is an attempt
 * to finish, which the guards may refuse.
 */
export function tickOutcome(
  core: SessionCore,
  guardTick: GuardTick,
  result: TickResult,
  recorded: TickResult,
): MaybePromise<TickOutcome> {
  if (result.toolCalls.length > 0) {
    // A tool call can ask to finish too (a final answer): then the exit is judged as usual.
    return core.guards.finishRequested(guardTick, result)
      ? attemptExit(core, guardTick)
      : { done: false };
  }
  const ending = judgeReply(recorded, core.recentTicks.slice(0, -1));
  if (ending.kind === 'end') return { done: true, status: ending.status, reason: ending.reason };
  if (ending.kind === 'again') {
    core.update((draft) => {
      draft.notices = [ending.notice];
    });
    core.emit({
      type: 'warning',
      tick: guardTick.tick,
      code: ending.continues ? 'reply-cut-off' : 'empty-reply',
      message: ending.notice,
    });
    return { done: false };
  }
  return attemptExit(core, guardTick);
}

/**
 * The model is trying to finish: every guard is asked (`exitAttempt`, guard-seam/guard-set.ts
 * merges the answers). A refusal names what is missing and goes on with that notice shown next
 * tick; a refusal whose bound is reached ends the run `blocked`.
 */
export function attemptExit(core: SessionCore, guardTick: GuardTick): MaybePromise<TickOutcome> {
  const verdict = judgeExit(core, guardTick);
  return isThenable(verdict)
    ? Promise.resolve(verdict).then((v) => exitOutcome(core, guardTick, v))
    : exitOutcome(core, guardTick, verdict);
}

/**
 * Every guard is asked whether the model may finish now (`exit:attempt` says it is asked). A
 * family may produce evidence first (a check the host runs): awaited only when it does.
 */
export function judgeExit(core: SessionCore, guardTick: GuardTick): MaybePromise<ExitVerdict> {
  core.emit({ type: 'exit:attempt', tick: guardTick.tick });
  const prepared = core.guards.beforeExitAttempt(guardTick);
  return isThenable(prepared)
    ? Promise.resolve(prepared).then(() => core.guards.exitAttempt(guardTick))
    : core.guards.exitAttempt(guardTick);
}

/** What the guards' verdict on an exit attempt means for the run (`exit:blocked` when refused). */
export function exitOutcome(
  core: SessionCore,
  guardTick: GuardTick,
  verdict: ExitVerdict,
): TickOutcome {
  const { tick } = guardTick;
  if (verdict.kind === 'allow') return { done: true, status: 'completed' };
  if (verdict.kind === 'refuse') {
    core.update((draft) => {
      draft.notices = [verdict.notice];
    });
  }
  core.emit({
    type: 'exit:blocked',
    tick,
    gate: verdict.names[0] ?? '',
    gates: verdict.names,
    reasons: verdict.reasons,
    by: 'runtime',
    final: verdict.kind === 'end',
  });
  return verdict.kind === 'end'
    ? { done: true, status: 'blocked', reason: verdict.reason }
    : { done: false };
}

/** `maxTicks` reached: `blocked` while a guard is still engaged, else `max-ticks`. */
export function endAtMaxTicks(
  core: SessionCore,
  maxTicks: number,
): { status: RunStatus; reason: string } {
  const engaged = core.guards.engagedAtMaxTicks();
  if (engaged.length > 0) {
    return {
      status: 'blocked',
      reason: `maxTicks (${maxTicks}) reached while ${engaged.join('; ')}. The agent did not finish; it is not a success.`,
    };
  }
  return {
    status: 'max-ticks',
    reason: `maxTicks (${maxTicks}) reached before the model finished. Call run() again to continue.`,
  };
}
