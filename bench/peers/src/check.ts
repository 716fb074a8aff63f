import { FINAL_TEXT, toolCallCount } from './script.js';
import type { RunOptions, Side, SideRun } from './side.js';

/** A side that did not make the calls it was scripted to make: its figures would mean nothing. */
export class MiscountError extends Error {}

/** Throws unless `run` made `steps + 1` model calls and ended with the final text. */
export function checkRun(side: Side, steps: number, run: SideRun): void {
  if (run.modelCalls !== steps + 1 || run.text !== FINAL_TEXT) {
    throw new MiscountError(
      `${side.label}: a run of ${steps} steps made ${run.modelCalls} model calls (expected ${steps + 1}) and ended with ${JSON.stringify(run.text.slice(0, 80))}`,
    );
  }
}

/** Throws unless `made` tool calls were `expected`. */
export function checkToolCalls(side: Side, expected: number, made: number): void {
  if (made !== expected) {
    throw new MiscountError(`${side.label}: ${made} tool calls, expected ${expected}`);
  }
}

/** One run, checked: exactly `steps` tool calls and `steps + 1` model calls. */
export async function checkedRun(
  side: Side,
  steps: number,
  options?: RunOptions,
): Promise<SideRun> {
  const before = toolCallCount();
  const run = await side.run(steps, options);
  checkToolCalls(side, steps, toolCallCount() - before);
  checkRun(side, steps, run);
  return run;
}
