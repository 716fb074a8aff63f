import type { TickResult } from '../../state/tick-result.js';

/**
 * A tool as `resultsOf` reads it: its name and its `execute`, whose return type is the type of
 * its results. `<Tool>` props written once (`defineTool`) are one; so is any object with both.
 */
export interface TypedTool<O = unknown> {
  /** The tool's name, which results are matched by. */
  readonly name: string;
  // `never` parameters: any execute fits, whatever its input; only its result type is read.
  /** Its execute; only its result type is read. */
  readonly execute: (input: never, context: never) => O;
}

/**
 * What `activateWhen` and `clearWhen` see: the finished tick, and `resultsOf` to read one tool's
 * results typed by its `execute` (instead of `JsonValue`, which a predicate would have to
 * stringify to search).
 */
export interface GateTick extends TickResult {
  /**
   * The outputs of this tick's successful calls of `tool` (matched by name), oldest first:
   * results that were errors or that a guard refused are left out. Typed by what `execute`
   * returns; the values are the ones the run recorded, so a `Date` or a class instance arrives
   * as JSON carried it (a string, a plain object).
   */
  resultsOf<O>(tool: TypedTool<O>): Awaited<O>[];
}

/**
 * The tick a gate predicate gets: the same data, with `resultsOf` beside it, not enumerable, so
 * the tick still compares, spreads and serializes as the data it is.
 */
export function gateTick(tick: TickResult): GateTick {
  const resultsOf = <O>(tool: TypedTool<O>): Awaited<O>[] => {
    const name = nameOf(tool);
    return tick.toolResults
      .filter((r) => r.toolName === name && !r.isError && r.refusedBy === undefined)
      .map((r) => r.output as Awaited<O>);
  };
  return Object.defineProperty({ ...tick }, 'resultsOf', { value: resultsOf }) as GateTick;
}

function nameOf(tool: TypedTool<unknown>): string {
  const name = (tool as { name?: unknown } | null | undefined)?.name;
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(
      `resultsOf needs a tool with a name (the props of a <Tool>, e.g. from defineTool), got ${tool === null ? 'null' : typeof tool}${typeof name === 'string' ? ' with an empty name' : ''}.`,
    );
  }
  return name;
}
