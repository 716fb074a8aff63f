import { AgateError } from '../../ground/agate-error.js';
import { errorMessage } from '../../ground/thrown.js';
import { SET_KNOB_TOOL } from '../../guard-seam/built-in-tool-names.js';
import type { TickResult, TickToolCall } from '../../state/tick-result.js';
import { callSignature } from '../../state/update.js';
import type { ContinueGateProps, ReworkHistory } from './continue-gate-props.js';

/**
 * Does the tick just finished redo earlier work? The default answer: one of its calls is
 * identical (name + canonical arguments) to a call made earlier in the run, in an earlier tick
 * or earlier in the same tick. `set_knob` never counts: setting a knob twice is not rework.
 * A custom `isRework` replaces the default and gets the same `isRepeat` helper.
 */
export function detectRework(
  tick: TickResult,
  previousCalls: readonly string[],
  isRework?: ContinueGateProps['isRework'],
  /** The tick's call signatures, when the caller has them already (one per call, in order). */
  signatures: readonly string[] = tick.toolCalls.map((c) => callSignature(c.toolName, c.input)),
  /** Membership of `previousCalls`, when the caller keeps one (see SignatureIndex). */
  seen: { has(signature: string): boolean } = new Set(previousCalls),
): boolean {
  const isRepeat = (call: { toolName: string; input: unknown }): boolean => {
    if (call.toolName === SET_KNOB_TOOL) return false;
    // A call of this tick has its signature computed already; only another call needs one.
    const index = tick.toolCalls.indexOf(call as TickToolCall);
    const signature = signatures[index] ?? callSignature(call.toolName, call.input);
    if (seen.has(signature)) return true;
    // A call from this tick repeats when an identical call came before it in the same reply.
    return index > 0 && signatures.slice(0, index).includes(signature);
  };
  if (isRework === undefined) return tick.toolCalls.some(isRepeat);
  const history: ReworkHistory = { previousCalls, isRepeat };
  try {
    return isRework(tick, history) === true;
  } catch (error) {
    throw new AgateError(
      `The ContinueGate's isRework threw on tick ${tick.tick}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}
