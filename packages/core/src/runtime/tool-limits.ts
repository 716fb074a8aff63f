import { InvalidElementError } from '../components/render-errors.js';
import type { ToolExecuteContext } from '../components/tool-context.js';
import { AgateError, nameErrorClass } from '../ground/agate-error.js';
import type { JsonValue } from '../ground/json.js';
import { isThenable } from '../ground/thenable.js';
import type { CompiledTool } from '../renderer/compiled-context.js';
import type { TickToolCall } from '../state/tick-result.js';
import { onAbort, untilAborted } from './abort.js';
import { atStep } from './fault.js';
import { ToolSuspended } from './inflight.js';
import { jsonTextOf, runToolCall } from './tool-execution.js';
import type { ToolCallOutcome, ToolOutputTruncation } from './tool-outcome.js';

/** What the model sees of one tool result, at most (`SessionOptions.maxToolOutputChars`). */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 100_000;

/** A session option that cannot work; thrown by `createSession`, before any run starts. */
export class InvalidOptionError extends AgateError {
  static {
    nameErrorClass(InvalidOptionError, 'InvalidOptionError');
  }
}

/** A tool ran longer than its time limit; the model sees the message as the tool's error. */
export class ToolTimeoutError extends AgateError {
  static {
    nameErrorClass(ToolTimeoutError, 'ToolTimeoutError');
  }
  constructor(
    /** The tool that ran too long. */
    readonly toolName: string,
    /** The time limit it ran past. */
    readonly timeoutMs: number,
  ) {
    super(
      `Tool "${toolName}" timed out after ${timeoutMs} ms and was told to stop (its abortSignal ` +
        'fired). Try a smaller piece of work, or another way.',
    );
  }
}

/** How much a tool call may take: time, and characters of output the model sees. */
export interface ToolLimits {
  /** The session default; `<Tool timeoutMs>` wins. Undefined: no time limit. */
  timeoutMs: number | undefined;
  maxOutputChars: number;
}

export type { ToolOutputTruncation } from './tool-outcome.js';

/** Reads and checks the session's tool limits; a bad value throws before any run starts. */
export function toolLimits(options: {
  toolTimeoutMs?: number | undefined;
  maxToolOutputChars?: number | undefined;
}): ToolLimits {
  const { toolTimeoutMs, maxToolOutputChars = DEFAULT_MAX_TOOL_OUTPUT_CHARS } = options;
  if (toolTimeoutMs !== undefined && !(Number.isFinite(toolTimeoutMs) && toolTimeoutMs > 0)) {
    throw new InvalidOptionError(
      `toolTimeoutMs must be a positive number of milliseconds, got ${String(toolTimeoutMs)}. ` +
        'Leave it out for no session-wide time limit.',
    );
  }
  if (!(Number.isSafeInteger(maxToolOutputChars) && maxToolOutputChars > 0)) {
    throw new InvalidOptionError(
      `maxToolOutputChars must be a whole number > 0, got ${String(maxToolOutputChars)} ` +
        `(default ${DEFAULT_MAX_TOOL_OUTPUT_CHARS.toLocaleString('en-US')}).`,
    );
  }
  return { timeoutMs: toolTimeoutMs, maxOutputChars: maxToolOutputChars };
}

/**
 * `runToolCall` within the limits: `execute` races the run's signal and the tool's time limit
 * (a tool that ignores its `abortSignal` cannot hold the run), a timeout becomes a tool error
 * the model sees, and the result the model sees is cut to `maxOutputChars` (the outcome's
 * `truncated` keeps the full value for the host). Only an abort of the run throws.
 */
export async function runLimitedToolCall(
  call: TickToolCall,
  tools: ReadonlyMap<string, CompiledTool>,
  limits: ToolLimits,
  context: ToolExecuteContext,
): Promise<ToolCallOutcome> {
  const tool = tools.get(call.toolName);
  let limited: CompiledTool | undefined;
  if (tool?.execute !== undefined) {
    const timeoutMs = tool.guard?.timeoutMs ?? limits.timeoutMs;
    if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw atStep(
        new InvalidElementError(
          `<Tool name="${tool.name}"> timeoutMs must be a positive number of milliseconds, got ` +
            `${String(timeoutMs)}. Leave it out to use the session's toolTimeoutMs.`,
        ),
        'tool',
      );
    }
    limited = limitedTool(tool, timeoutMs);
  }
  let outcome: ToolCallOutcome;
  try {
    outcome = await runToolCall(call, tools, context, limited);
  } catch (error) {
    context.abortSignal.throwIfAborted();
    if (ToolSuspended.isInstance(error)) throw error;
    throw atStep(error, 'tool');
  }
  // Guards compare tools by identity; they see the rendered one, not the wrapper.
  if (tool !== undefined && outcome.tool !== undefined && outcome.tool !== tool) {
    outcome = { ...outcome, tool };
  }
  if (ToolTimeoutError.isInstance(outcome.error)) {
    outcome = { ...outcome, result: { ...outcome.result, output: outcome.error.message } };
  }
  const { modelOutput } = outcome.result;
  if (modelOutput !== undefined) {
    // The model sees the converted output: that is what the cap is about (media parts aside).
    const boundedModel = boundModelOutput(modelOutput, limits.maxOutputChars);
    if (boundedModel === undefined) return outcome;
    return {
      ...outcome,
      result: { ...outcome.result, modelOutput: boundedModel.output },
      truncated: { ...boundedModel.truncated, fullOutput: outcome.result.output },
    };
  }
  const bounded = boundOutput(outcome.result.output, limits.maxOutputChars);
  if (bounded === undefined) return outcome;
  return {
    ...outcome,
    result: { ...outcome.result, output: bounded.output },
    truncated: bounded.truncated,
  };
}

/** The `truncated` field of a `tool:result` event, when the outcome has one. */
export function truncationOf(outcome: ToolCallOutcome): { truncated?: ToolOutputTruncation } {
  return outcome.truncated === undefined ? {} : { truncated: outcome.truncated };
}

type Execute = NonNullable<CompiledTool['execute']>;

/**
 * The tool with its `execute` run within its limits. Made per call, not kept per compiled tool:
 * a kept copy of every tool costs each idle session about 5 KB (20 tools), for a saving of well
 * under a microsecond per call.
 */
function limitedTool(tool: CompiledTool, timeoutMs: number | undefined): CompiledTool {
  return { ...tool, execute: withinLimits(tool, timeoutMs) };
}

function withinLimits(tool: CompiledTool, timeoutMs: number | undefined): Execute {
  const execute = tool.execute as Execute;
  if (timeoutMs === undefined) {
    return (input, context: ToolExecuteContext) => {
      const signal = context.abortSignal;
      let value: unknown;
      try {
        value = execute(input, context);
      } catch (error) {
        return Promise.reject(error);
      }
      // A synchronous result is already there: nothing can hold the run, so no race with the
      // signal (its listener and promises are per-call work for nothing), only its state.
      if (!isThenable(value)) return signal.aborted ? Promise.reject(signal.reason) : value;
      return untilAborted(value, signal);
    };
  }
  return (input, context: ToolExecuteContext) => {
    const run = context.abortSignal;
    // One controller fed by the run's signal and the timer: `AbortSignal.any` would do the same
    // with weak references and a registry, a cost every call of a tool with a limit would pay.
    // The call's race ends where the controller is aborted, so the controller's own signal needs
    // no listener, and the run's signal is watched through its one shared listener (abort.ts).
    const limit = new AbortController();
    let settle: ((reason: unknown) => void) | undefined;
    const stop = (reason: unknown) => {
      limit.abort(reason);
      settle?.(reason);
    };
    if (run.aborted) stop(run.reason);
    const stopWatching = run.aborted ? undefined : onAbort(run, stop);
    // A referenced timer: a tool hanging on nothing must still time out, not let the process exit.
    const handle = setTimeout(() => stop(new ToolTimeoutError(tool.name, timeoutMs)), timeoutMs);
    let work: Promise<unknown>;
    try {
      work = Promise.resolve(execute(input, { ...context, abortSignal: limit.signal }));
    } catch (error) {
      work = Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(handle);
        stopWatching?.();
      };
      const { signal } = limit;
      if (signal.aborted) {
        // Aborted before or while `execute` started: what it does later is dropped.
        work.catch(() => {});
        done();
        reject(signal.reason);
        return;
      }
      settle = (reason) => {
        done();
        reject(reason);
      };
      work.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  };
}

/**
 * A converted output (an AI SDK `ToolResultOutput`) cut to `max` characters of text: the text
 * parts of a `content` output are measured together and cut to one, media parts stay whole.
 * Undefined when it fits.
 */
export function boundModelOutput(
  output: JsonValue,
  max: number,
): { output: JsonValue; truncated: ToolOutputTruncation } | undefined {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined;
  const { type, value } = output;
  if (type === 'text' || type === 'json') {
    const bounded = boundOutput(value ?? null, max);
    return (
      bounded && { output: { type: 'text', value: bounded.output }, truncated: bounded.truncated }
    );
  }
  if (type !== 'content' || !Array.isArray(value)) return undefined;
  const isText = (part: JsonValue) =>
    typeof part === 'object' && part !== null && !Array.isArray(part) && part.type === 'text';
  const text = value
    .filter(isText)
    .map((part) => String((part as { text?: JsonValue }).text ?? ''))
    .join('\n');
  const bounded = boundOutput(text, max);
  if (bounded === undefined) return undefined;
  const media = value.filter((part) => !isText(part));
  return {
    output: { type: 'content', value: [{ type: 'text', text: bounded.output }, ...media] },
    truncated: bounded.truncated,
  };
}

/**
 * The result cut to `max` characters with a marker saying how much is missing, or undefined
 * when it fits. A JSON value is measured (and cut) as its JSON text.
 */
export function boundOutput(
  output: JsonValue,
  max: number,
): { output: string; truncated: ToolOutputTruncation } | undefined {
  const text = typeof output === 'string' ? output : jsonTextOf(output);
  if (text.length <= max) return undefined;
  // Never split a surrogate pair: half an emoji is not valid text for the provider.
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  const cut = text.length - end;
  const fmt = (n: number) => n.toLocaleString('en-US');
  return {
    output:
      `${text.slice(0, end)}\n\n[Output truncated: ${fmt(cut)} of ${fmt(text.length)} characters ` +
      `cut; only the first ${fmt(end)} are shown. Ask for less (a narrower query, a range, a ` +
      'summary) to see the rest.]',
    truncated: { originalChars: text.length, fullOutput: output },
  };
}
