import type { ModelMessage, Tool as SdkTool } from 'ai';
import type { ToolGuardProps } from '../components/tool.js';
import type { ToolExecuteContext } from '../components/tool-context.js';
import type { ContextBudgetReport } from './budget-report.js';

/** A tool as the runtime will offer it to the model and execute it. */
export interface CompiledTool {
  /** What the model calls it by; unique in the request. */
  name: string;
  /** What the model reads about the tool. */
  description?: string;
  /** A zod schema or an AI SDK schema (`jsonSchema()`, `zodSchema()`). */
  inputSchema: SdkTool['inputSchema'];
  /** Runs a call. An AI SDK tool without one is offered, but a call of it is a tool error. */
  execute?: (input: never, context: ToolExecuteContext) => unknown;
  /** An AI SDK tool's `toModelOutput`: what the model sees of a result (an MCP image, say). */
  toModelOutput?: SdkTool['toModelOutput'];
  /** `component` for `<Tool>`, `runtime` for tools Agate adds itself (set_knob). */
  source: 'component' | 'runtime';
  /**
   * The `<McpServer name>` a tool came from: such a tool gives way. Where a `<Tool>`, another
   * server's tool or a guard family's own tool (`final_answer`, `set_knob`, …) has its name, it
   * is left out with an `mcp-tool-name-taken` warning, and the run goes on.
   */
  givesWay?: string;
  /** What guards know about the tool's calls (`<Tool category evidence writes timeoutMs>`). */
  guard?: ToolGuardProps;
  /**
   * Calls of this tool may run alongside the calls after them, this many at once (a
   * sub-agent). Absent: one at a time, in the model's order (see runtime/tool-batch.ts).
   */
  concurrency?: number;
}

/** Content the model sees this tick only; never stored in the timeline. */
export interface EphemeralBlock {
  /** The content, as rendered. */
  text: string;
  /** Where it came from, for readers of snapshots (for example `gate:verification`). */
  source?: string;
  /** `<Ephemeral priority>`: only such blocks may be dropped by a context budget. */
  priority?: number;
}

/**
 * What guard families report in every compiled context, beside what the tree compiled to: each
 * family declares its fields by augmenting this interface (the gates family adds `knobs` and
 * `gates`: guard-seam/built-in-family-types.ts) and gives them from `render`
 * (`GuardContribution.reports`), so this floor
 * names no family.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the families' declarations (declaration merging).
export interface ContextReports {}

/**
 * What one render compiles to: everything the next model call needs. The stable part
 * (system, messages, tools) comes first; ephemeral blocks are appended after it so that
 * the request prefix stays byte-identical between ticks and provider prompt caches hit.
 */
export interface CompiledContext extends ContextReports {
  /** The system text, from `<System>` and `<Section>` elements in tree order. */
  system: string;
  /** The messages of the request, in tree order. */
  messages: ModelMessage[];
  /** The tools the model may call in this request. */
  tools: CompiledTool[];
  /** Content for this request only (gate instructions, notices), placed after the messages. */
  ephemeral: EphemeralBlock[];
  /** How the request fits its token budget; only with `context: { maxTokens }`. */
  budget?: ContextBudgetReport;
}

export const COMPILED_CONTEXT = Symbol.for('agate.compiled-context');

export function isCompiledContext(value: unknown): value is CompiledContext {
  return typeof value === 'object' && value !== null && COMPILED_CONTEXT in value;
}
