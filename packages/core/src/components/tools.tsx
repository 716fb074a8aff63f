import type { Tool as SdkTool, ToolSet } from 'ai';
import { createElement, Fragment, type ReactNode } from 'react';
import { AgateError, nameErrorClass } from '../ground/agate-error.js';
import { InvalidElementError } from './render-errors.js';
import { Tool, type ToolGuardProps } from './tool.js';

/** What `toolOptions` may add to one tool of a `<Tools>` set: what a `<Tool>` has besides its schema. */
export interface ToolOptions extends ToolGuardProps<unknown, unknown> {
  /** Replaces the tool's own description (what the model reads to choose it). */
  description?: string;
}

/** Props of `<Tools>`: an AI SDK tool set to mount, with options per tool. */
export interface ToolsProps {
  /** An AI SDK `ToolSet`: what `tool()` makes, or what an MCP client's `tools()` returns. */
  tools: ToolSet;
  /** Per tool name: evidence, category, needsApproval, timeoutMs, a description override. */
  toolOptions?: Readonly<Record<string, ToolOptions>>;
}

/**
 * Mounts an AI SDK `ToolSet`: each tool becomes a tool of the agent exactly like a `<Tool>`
 * (validated input, time limit, output cap, abort, spans, receipts). An AI SDK tool's own
 * `needsApproval` holds unless `toolOptions` says otherwise.
 */
export function Tools({ tools, toolOptions }: ToolsProps): ReactNode {
  if (typeof tools !== 'object' || tools === null) {
    throw new InvalidElementError('<Tools tools> needs an AI SDK ToolSet (an object of tools).');
  }
  const names = Object.keys(tools);
  if (toolOptions !== undefined) {
    const unknown = Object.keys(toolOptions).filter((name) => !Object.hasOwn(tools, name));
    if (unknown.length > 0) {
      throw new InvalidElementError(
        `<Tools toolOptions> names ${unknown.map((n) => `"${n}"`).join(', ')}, not in the tool set ` +
          `(its tools: ${names.join(', ') || 'none'}). Check the spelling, or drop the entry.`,
      );
    }
  }
  return createElement(
    Fragment,
    null,
    names.map((name) =>
      createElement(Tool, {
        key: name,
        name,
        tool: reportingErrors(tools[name] as SdkTool),
        ...toolOptions?.[name],
      }),
    ),
  );
}

const wrapped = new WeakMap<SdkTool, SdkTool>();

/**
 * The tool with MCP error results made errors: an MCP `CallToolResult` with `isError: true`
 * is a failed call the model must see as one, which the AI SDK passes on as a plain result.
 * Made once per tool object, so a set rendered every tick is not wrapped every tick.
 */
export function reportingErrors(tool: SdkTool): SdkTool {
  const execute = tool.execute;
  if (execute === undefined) return tool;
  let made = wrapped.get(tool);
  if (made === undefined) {
    made = {
      ...tool,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) =>
        throwIfErrorResult(await execute(input as never, options)),
    } as SdkTool;
    wrapped.set(tool, made);
  }
  return made;
}

/**
 * A tool whose `execute` already makes error results errors (`throwIfErrorResult`), as an
 * `<McpServer>`'s do within their own wrapper: `reportingErrors` leaves it as it is, so a
 * call goes through one async layer fewer.
 */
export function reportsErrors(tool: SdkTool): SdkTool {
  wrapped.set(tool, tool);
  return tool;
}

/** The output, or a `ToolResultError` thrown when it is an error result (MCP `isError`). */
export function throwIfErrorResult<T>(output: T): T {
  if (isErrorResult(output)) throw new ToolResultError(errorText(output));
  return output;
}

/** A tool answered with an error result (MCP `isError: true`); the message is its text. */
export class ToolResultError extends AgateError {
  static {
    nameErrorClass(ToolResultError, 'ToolResultError');
  }
}

interface ErrorResult {
  isError: true;
  content: unknown[];
}

function isErrorResult(output: unknown): output is ErrorResult {
  return (
    typeof output === 'object' &&
    output !== null &&
    (output as { isError?: unknown }).isError === true &&
    Array.isArray((output as { content?: unknown }).content)
  );
}

function errorText(result: ErrorResult): string {
  const parts = result.content.map((part) => {
    const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
    return type === 'text' && typeof text === 'string' ? text : JSON.stringify(part);
  });
  return parts.join('\n') || 'the tool reported an error without a message';
}
