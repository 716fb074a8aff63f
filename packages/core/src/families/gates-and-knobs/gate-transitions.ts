import { AgateError, nameErrorClass } from '../../ground/agate-error.js';
import { errorMessage } from '../../ground/thrown.js';
import { SET_KNOB_TOOL } from '../../guard-seam/built-in-tool-names.js';
import type { GateStatus } from '../../state/session-state.js';
import type { TickResult } from '../../state/tick-result.js';
import { gateTick } from './gate-tick.js';
import type { GateDescriptor, GateHistory } from './gate-types.js';

export interface GateAtTickEnd {
  name: string;
  state: GateStatus;
  descriptor: GateDescriptor;
}

export interface GateTransition {
  gate: string;
  from: GateStatus;
  to: GateStatus;
  by: 'runtime' | 'host';
  reason: string;
}

/**
 * Gate transitions at tick end, in a fixed order that does not depend on the order of calls
 * inside the tick:
 *   1. `activateWhen` fires for every gate that is `inactive` after the tick's set_knob calls,
 *      over all of the tick's other calls. So "clear, then edit" and "edit, then clear" in one
 *      tick both end with the gate active: a clear only sticks in a tick with no activating call.
 *   2. `clearWhen` (host-verified evidence) clears every gate that is then engaged.
 * Pure. A predicate that throws stops the computation with a GatePredicateError naming the
 * gate and the predicate, before any transition is applied: the tick's gates stay as they were.
 */
export function gateTransitionsAtTickEnd(
  gates: readonly GateAtTickEnd[],
  tick: TickResult,
  /** Or a function that gives it: built only if a `clearWhen` is asked (most ticks ask none). */
  history: GateHistory | (() => GateHistory),
): GateTransition[] {
  let given = typeof history === 'function' ? undefined : history;
  const historyNow = () => {
    given ??= (history as () => GateHistory)();
    return given;
  };
  // Built once per tick, for every gate's predicates (with `resultsOf` beside the data).
  const workTick = gateTick(withoutSetKnob(tick));
  const fullTick = gateTick(tick);
  const transitions: GateTransition[] = [];
  for (const gate of gates) {
    let state = gate.state;
    const { activateWhen, clearWhen } = gate.descriptor;
    if (
      state === 'inactive' &&
      activateWhen !== undefined &&
      ask(gate.name, 'activateWhen', () => activateWhen(workTick))
    ) {
      transitions.push({
        gate: gate.name,
        from: state,
        to: 'active',
        by: 'runtime',
        reason: 'activateWhen matched this tick',
      });
      state = 'active';
    }
    if (
      state !== 'inactive' &&
      clearWhen !== undefined &&
      ask(gate.name, 'clearWhen', () => clearWhen(fullTick, historyNow()))
    ) {
      transitions.push({
        gate: gate.name,
        from: state,
        to: 'inactive',
        by: 'host',
        reason: 'clearWhen verified the evidence',
      });
    }
  }
  return transitions;
}

/** A gate's activateWhen or clearWhen threw; the run ends with status `error`. */
export class GatePredicateError extends AgateError {
  static {
    nameErrorClass(GatePredicateError, 'GatePredicateError');
  }
  constructor(
    /** The gate whose predicate threw. */
    readonly gate: string,
    /** Which of its predicates threw. */
    readonly predicate: 'activateWhen' | 'clearWhen',
    cause: unknown,
  ) {
    super(
      `Gate "${gate}": ${predicate} threw at tick end: ${errorMessage(cause)}. Fix the predicate; it must return a boolean for any finished tick.`,
      { cause },
    );
  }
}

/** Only a literal `true` counts, so a predicate returning a truthy non-boolean does not fire. */
function ask(gate: string, predicate: 'activateWhen' | 'clearWhen', fn: () => boolean): boolean {
  try {
    return fn() === true;
  } catch (error) {
    throw new GatePredicateError(gate, predicate, error);
  }
}

/**
 * `activateWhen` sees the tick's work, not the model's bookkeeping: no `set_knob` call, and no
 * call a guard refused (a write refused at a pending checkpoint changed nothing).
 */
export function withoutSetKnob(tick: TickResult): TickResult {
  // The usual tick: nothing to leave out, nothing to build.
  if (
    !tick.toolCalls.some((c) => c.toolName === SET_KNOB_TOOL) &&
    !tick.toolResults.some((r) => r.refusedBy !== undefined)
  ) {
    return tick;
  }
  const ids = new Set([
    ...tick.toolCalls.filter((c) => c.toolName === SET_KNOB_TOOL).map((c) => c.toolCallId),
    ...tick.toolResults.filter((r) => r.refusedBy !== undefined).map((r) => r.toolCallId),
  ]);
  if (ids.size === 0) return tick;
  return {
    ...tick,
    toolCalls: tick.toolCalls.filter((c) => !ids.has(c.toolCallId)),
    toolResults: tick.toolResults.filter((r) => !ids.has(r.toolCallId)),
  };
}
