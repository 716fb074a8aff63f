import type { Tool as SdkTool } from 'ai';
import { createElement, type ReactNode } from 'react';
import type { ZodType, z } from 'zod';
import { InvalidElementError } from './render-errors.js';
import type { ToolExecuteContext } from './tool-context.js';

/**
 * What guards know about a tool's calls, besides its schema and `execute`: the one extension
 * point for `<Tool>` props. Each guard family declares the props it reads by augmenting this
 * interface (`category` and `shellCommand` for phase gates, `evidence` for todos, `writes` for
 * checkpoints: guard-seam/built-in-family-types.ts), and at run time with `defineToolProp(name,
 * check)` (which copies it into the compiled tool's `guard`, checked where it is written), so
 * neither `<Tool>` nor the renderer names a family. `I` is the validated input, `O` what
 * `execute` returns. A guard of your own can add one the same way:
 *
 *   declare module '@agate/core/guards' {
 *     interface ToolGuardProps<I, O> {
 *       costly?: boolean;
 *     }
 *   }
 *   defineToolProp('costly', (tool, value) => { if (typeof value !== 'boolean') throw ... });
 */
// biome-ignore lint/correctness/noUnusedVariables: the families' declarations of this interface use I and O.
export interface ToolGuardProps<I = never, O = never> {
  /** A call that runs longer becomes a tool error; overrides the session's `toolTimeoutMs`. */
  timeoutMs?: number;
}

/**
 * Props of `<Tool>`: a tool written inline (name, input schema, execute) or an AI SDK `tool()`,
 * with its guards.
 */
export type ToolProps<S extends ZodType = ZodType, O = unknown> =
  | ({
      name: string;
      description?: string;
      /** zod schema for the arguments; the runtime validates every call against it. */
      input: S;
      execute: (input: z.output<S>, context: ToolExecuteContext) => O | Promise<O>;
      tool?: never;
    } & ToolGuardProps<z.output<S>, O>)
  | ({
      name: string;
      /** A ready AI SDK `tool()`: its description, inputSchema and execute are used. */
      tool: SdkTool;
      description?: string;
      input?: never;
      execute?: never;
    } & ToolGuardProps<unknown, unknown>);

/**
 * A tool the model may call this tick. The runtime executes it (not the AI SDK) so it can
 * validate arguments, refuse calls and record results in the timeline.
 */
export function Tool<S extends ZodType, O = unknown>(props: ToolProps<S, O>): ReactNode {
  return createElement('agate-tool', props as unknown as Record<string, unknown>);
}

/** `<Tool>` props written once, outside the tree: what `defineTool` takes and gives back. */
export type ToolDefinition<S extends ZodType = ZodType, O = unknown> = {
  name: string;
  description?: string;
  /** zod schema for the arguments; the runtime validates every call against it. */
  input: S;
  execute: (input: z.output<S>, context: ToolExecuteContext) => O | Promise<O>;
} & ToolGuardProps<z.output<S>, O>;

/**
 * A tool's props as one value: rendered with `<Tool {...runTests} />`, and read by a gate's
 * predicate with `tick.resultsOf(runTests)`, typed by what `execute` returns. `execute`'s input
 * is typed by the schema, as inside `<Tool>`. The name is checked here, so a bad one fails
 * where it was written; the rest is checked when the tool renders.
 */
export function defineTool<S extends ZodType, O>(
  definition: ToolDefinition<S, O>,
): ToolDefinition<S, O> {
  const { name, execute } = (definition ?? {}) as { name?: unknown; execute?: unknown };
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new InvalidElementError(
      `defineTool({ name: ${JSON.stringify(name) ?? String(name)} }) needs a name of 1-64 letters, digits, "_" or "-" (the limit most providers enforce).`,
    );
  }
  if (typeof execute !== 'function') {
    throw new InvalidElementError(
      `defineTool({ name: "${name}" }) needs an \`execute\` function (for an AI SDK tool(), use <Tool tool={...}>).`,
    );
  }
  return definition;
}

/** What providers accept as a tool name (compile-tool.ts checks the same at render). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
