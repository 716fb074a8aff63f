import type { ModelMessage, Tool as SdkTool } from 'ai';
import { createElement, type ReactNode } from 'react';
import type { ZodType, z } from 'zod';
import type { EvidenceSpec } from '../gates/evidence/spec.js';
import type { ToolCategoryProp } from '../gates/phase/category.js';
import type { ToolExecuteContext } from '../runtime/tool-context.js';

/** What guards know about a tool's calls, besides its schema and `execute`. */
export interface ToolGuardProps<I = never, O = never> {
  /** What kind of work each call is, for `<PhaseGates>`. Default `'other'`. */
  category?: ToolCategoryProp<I>;
  /** With `category="shell"`: where the command is when it is not `input.command`. */
  shellCommand?: (input: I) => string;
  /** What a successful call is evidence of, for `complete_step` receipts. */
  evidence?: EvidenceSpec<I, O>;
  /** Paths a call writes (relative to the workspace); lets file triggers skip a full scan. */
  writes?: (input: I) => readonly string[];
  /** A call that runs longer becomes a tool error; overrides the session's `toolTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Whether a call must be approved by a person before it runs (`true`, or decided per call).
   * `<Tools>` and `<McpServer>` fill it from `toolOptions` or the AI SDK tool's own `needsApproval`.
   */
  needsApproval?:
    | boolean
    | ((input: I, context: ToolApprovalContext) => boolean | Promise<boolean>);
}

/** What a `needsApproval` function is told about the call besides its input. */
export interface ToolApprovalContext {
  toolCallId: string;
  /** The tick of the call (1-based, over the session's life). */
  tick: number;
  /** The timeline as it was when the model was called. */
  messages: readonly ModelMessage[];
}

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
