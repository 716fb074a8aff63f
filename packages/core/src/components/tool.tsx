import type { Tool as SdkTool } from 'ai';
import { createElement, type ReactNode } from 'react';
import type { ZodType, z } from 'zod';
import type { ToolExecuteContext } from '../runtime/tool-context.js';

export type ToolProps<S extends ZodType = ZodType> =
  | {
      name: string;
      description?: string;
      /** zod schema for the arguments; the runtime validates every call against it. */
      input: S;
      execute: (input: z.output<S>, context: ToolExecuteContext) => unknown;
      tool?: never;
    }
  | {
      name: string;
      /** A ready AI SDK `tool()`: its description, inputSchema and execute are used. */
      tool: SdkTool;
      description?: string;
      input?: never;
      execute?: never;
    };

/**
 * A tool the model may call this tick. The runtime executes it (not the AI SDK) so it can
 * validate arguments, refuse calls and record results in the timeline.
 */
export function Tool<S extends ZodType>(props: ToolProps<S>): ReactNode {
  return createElement('agate-tool', props as Record<string, unknown>);
}
