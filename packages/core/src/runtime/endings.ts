import type { RunStatus } from '../state/session-state.js';
import type { TickResult } from '../state/tick-result.js';

/**
 * What a reply without tool calls means. Only a whole answer is an attempt to finish: an empty
 * reply is asked again once, a reply cut off by the output limit is continued (bounded), and a
 * reply stopped by the provider's content filter ends the run with a status of its own. Pure:
 * the tick loop applies the answer.
 */
export type ReplyEnding =
  /** A whole answer: the model is trying to finish (guards may still refuse). */
  | { kind: 'exit' }
  /** Ask the model again with `notice`; the loop goes on. */
  | { kind: 'again'; notice: string; continues: boolean }
  | { kind: 'end'; status: RunStatus; reason: string };

/** Replies cut off by the output limit that are continued in a row before the run ends. */
export const MAX_CONTINUATIONS = 2;

export const EMPTY_REPLY_NOTICE =
  'Your last reply was empty: no text and no tool call. Answer the task, or call one of your tools.';

export const CONTINUE_NOTICE =
  'Your last reply was cut off by the output limit. Continue exactly where it stopped, without ' +
  'repeating what you already wrote; keep it short.';

/** A reply with no text (whitespace only) and no tool call, not explained by a cut-off. */
export function isEmptyReply(
  tick: Pick<TickResult, 'text' | 'toolCalls' | 'finishReason'>,
): boolean {
  return (
    tick.toolCalls.length === 0 &&
    tick.text.trim() === '' &&
    tick.finishReason !== 'length' &&
    tick.finishReason !== 'content-filter'
  );
}

/** A text-only reply cut off by the output limit. */
export function isCutOff(tick: Pick<TickResult, 'toolCalls' | 'finishReason'>): boolean {
  return tick.toolCalls.length === 0 && tick.finishReason === 'length';
}

/**
 * Judges `current` (a reply without tool calls) given the ticks before it, most recent last
 * (only the ones this process saw; after a restore the count starts again, still bounded).
 */
export function judgeReply(current: TickResult, before: readonly TickResult[]): ReplyEnding {
  if (current.finishReason === 'content-filter') {
    return {
      status: 'content-filter',
      kind: 'end',
      reason:
        `Tick ${current.tick}: the provider's content filter stopped the reply (finishReason ` +
        '"content-filter"). What it wrote before that is in result.text; it is not a whole answer.',
    };
  }
  if (isCutOff(current)) {
    const streak = trailing(before, isCutOff);
    if (streak >= MAX_CONTINUATIONS) {
      return {
        kind: 'end',
        status: 'output-limit',
        reason:
          `Tick ${current.tick}: the reply was cut off by the output limit ${streak + 1} times in a ` +
          'row (finishReason "length"), so the answer is incomplete. Raise maxOutputTokens in ' +
          'modelSettings, or ask for a shorter answer, and run() again.',
      };
    }
    return { kind: 'again', notice: CONTINUE_NOTICE, continues: true };
  }
  if (isEmptyReply(current)) {
    if (trailing(before, isEmptyReply) >= 1) {
      return {
        kind: 'end',
        status: 'error',
        reason: `Tick ${current.tick}: the model returned nothing (an empty reply, twice in a row: no text and no tool call).`,
      };
    }
    return { kind: 'again', notice: EMPTY_REPLY_NOTICE, continues: false };
  }
  return { kind: 'exit' };
}

/** How many of the last ticks in a row satisfy `test`. */
function trailing(ticks: readonly TickResult[], test: (tick: TickResult) => boolean): number {
  let n = 0;
  for (let i = ticks.length - 1; i >= 0 && test(ticks[i]!); i--) n++;
  return n;
}
