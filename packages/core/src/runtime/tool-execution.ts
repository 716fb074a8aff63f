import { asSchema } from 'ai';
import { type ZodType, z } from 'zod';
import type { ToolExecuteContext } from '../components/tool-context.js';
import type { JsonValue } from '../ground/json.js';
import { isThenable } from '../ground/thenable.js';
import { errorMessage, safeThrown } from '../ground/thrown.js';
import type { CompiledTool } from '../renderer/compiled-context.js';
import type { TickToolCall, TickToolResult } from '../state/tick-result.js';
import { ToolSuspended } from './inflight.js';
import type { ToolCallOutcome } from './tool-outcome.js';

/**
 * Runs one tool call the way the model should experience it: unknown tools, invalid
 * arguments and throwing `execute`s all become tool errors the model can read and fix.
 * Nothing here throws, except an abort. The outcome keeps the validated input and the raw
 * output for guards (evidence receipts judge the output before it is made JSON).
 */
export async function executeToolCall(
  call: TickToolCall,
  tools: ReadonlyMap<string, CompiledTool>,
  context: ToolExecuteContext,
): Promise<TickToolResult> {
  return (await runToolCall(call, tools, context)).result;
}

/** `executeToolCall` with everything guards need to judge the call afterwards. */
export async function runToolCall(
  call: TickToolCall,
  tools: ReadonlyMap<string, CompiledTool>,
  context: ToolExecuteContext,
  /** The called tool as it should run (its limits applied), instead of `tools`' entry. */
  override?: CompiledTool,
): Promise<ToolCallOutcome> {
  const base = { toolCallId: call.toolCallId, toolName: call.toolName };
  const refused = (output: string, tool?: CompiledTool): ToolCallOutcome => ({
    call,
    ...(tool !== undefined ? { tool } : {}),
    result: { ...base, isError: true, output },
    executed: false,
  });
  const tool = override ?? tools.get(call.toolName);
  if (tool === undefined) {
    const names = [...tools.keys()];
    return refused(
      `Unknown tool "${call.toolName}". ` +
        (names.length > 0
          ? `Available tools: ${names.join(', ')}.`
          : 'No tools are available now.'),
    );
  }
  if (tool.execute === undefined) {
    return refused(
      `Tool "${call.toolName}" has no execute function, so it cannot be called.`,
      tool,
    );
  }

  // Validation and the output's conversion are awaited only when they are asynchronous: each
  // await is a turn of the microtask queue that every call would pay.
  const validated = validateInput(tool, call.input);
  const parsed = isThenable(validated) ? await validated : validated;
  if (!parsed.ok) return refused(parsed.message, tool);

  const input = parsed.value;
  try {
    const output = await tool.execute(input as never, context);
    let modelOutput: JsonValue | undefined;
    if (tool.toModelOutput !== undefined) {
      const converted: unknown = tool.toModelOutput({
        toolCallId: call.toolCallId,
        input,
        output,
      } as never);
      modelOutput = toJsonValue(isThenable(converted) ? await converted : converted);
    }
    return {
      call,
      tool,
      input,
      output,
      executed: true,
      result: {
        ...base,
        isError: false,
        output: toJsonValue(output),
        ...(modelOutput !== undefined ? { modelOutput } : {}),
      },
    };
  } catch (thrown) {
    context.abortSignal.throwIfAborted();
    // Kept for guards and the host; a hostile value (revoked Proxy, throwing getter) is replaced.
    const error = safeThrown(thrown);
    // The call is not over: it waits (a sub-agent's checkpoint), to go on in the next run.
    if (ToolSuspended.isInstance(error)) throw error;
    return {
      call,
      tool,
      input,
      error,
      executed: true,
      result: {
        ...base,
        isError: true,
        output: `Tool "${call.toolName}" failed: ${errorMessage(error)}`,
      },
    };
  }
}

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/** The arguments checked against the tool's schema: at once, unless its validation is async. */
export function validateInput(tool: CompiledTool, input: unknown): Parsed | PromiseLike<Parsed> {
  if (typeof input === 'string') {
    // The SDK hands back the raw text when the model's arguments were not JSON.
    return {
      ok: false,
      message: withExpected(
        `Invalid arguments for tool "${tool.name}": not valid JSON (${truncate(input, 200)}).`,
        tool,
        ' ',
      ),
    };
  }
  const schema = tool.inputSchema;
  if (isZodSchema(schema)) {
    const result = schema.safeParse(input);
    if (result.success) return { ok: true, value: result.data };
    return {
      ok: false,
      message: withExpected(
        `Invalid arguments for tool "${tool.name}":\n${z.prettifyError(result.error)}`,
        tool,
        '\n',
      ),
    };
  }
  const sdkSchema = asSchema(schema);
  if (sdkSchema.validate === undefined) return { ok: true, value: input };
  const checked = sdkSchema.validate(input);
  return isThenable(checked) ? checked.then((r) => parsedOf(tool, r)) : parsedOf(tool, checked);
}

function parsedOf(
  tool: CompiledTool,
  result: { success: true; value: unknown } | { success: false; error: unknown },
): Parsed {
  if (result.success) return { ok: true, value: result.value };
  return {
    ok: false,
    message: withExpected(
      `Invalid arguments for tool "${tool.name}": ${errorMessage(result.error)}`,
      tool,
      '\n',
    ),
  };
}

/** The message plus the expected schema, when there is one to show (no dangling separator). */
function withExpected(message: string, tool: CompiledTool, separator: string): string {
  const hint = expected(tool);
  return hint === '' ? message : `${message}${separator}${hint}`;
}

function expected(tool: CompiledTool): string {
  try {
    if (!isZodSchema(tool.inputSchema)) return '';
    // `$schema` names the JSON Schema dialect: tokens the model does not need.
    const { $schema: _dialect, ...json } = z.toJSONSchema(tool.inputSchema, {
      unrepresentable: 'any',
    });
    return `Expected arguments matching: ${truncate(JSON.stringify(json), 600)}`;
  } catch {
    return '';
  }
}

function isZodSchema(schema: unknown): schema is ZodType {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    '_zod' in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === 'function'
  );
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Tool outputs go into the timeline, which must stay JSON. */
export function toJsonValue(value: unknown): JsonValue {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return null;
    const json = JSON.parse(text) as JsonValue;
    if (typeof json === 'object' && json !== null) lastConverted = { json, text };
    return json;
  } catch (error) {
    return `[unserializable tool output: ${errorMessage(error)}]`;
  }
}

/** The latest object `toJsonValue` made and the JSON text it was parsed from. */
let lastConverted: { json: object; text: string } | undefined;

/**
 * `JSON.stringify(json)`: the text `toJsonValue` just parsed it from, when `json` is the object
 * it made last (a tool's output measured against its limit right after its call), which is
 * what stringifying it again would give. Forgets that text either way: it is asked once.
 */
export function jsonTextOf(json: JsonValue): string {
  const last = lastConverted;
  lastConverted = undefined;
  return last !== undefined && last.json === json ? last.text : JSON.stringify(json);
}
