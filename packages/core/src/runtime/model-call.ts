import {
  asSchema,
  generateText,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type streamText,
  experimental_streamTextLowMemory as streamTextLowMemory,
  type ToolSet,
  tool,
} from 'ai';
import { InvalidElementError } from '../components/render-errors.js';
import { errorMessage } from '../ground/thrown.js';
import type { CompiledContext } from '../renderer/compiled-context.js';
import type { UsageTotals } from '../state/session-state.js';
import type { TickToolCall } from '../state/tick-result.js';
import type { RequestFormCache } from './request-messages.js';
import { ModelCallError } from './runtime-errors.js';
import { SDK_TELEMETRY_OFF, sdkTelemetrySetting } from './sdk-telemetry.js';
import { PerToolList } from './tool-index.js';

/** Settings passed through to every AI SDK call. */
export interface ModelSettings {
  /** Sampling temperature, as the AI SDK takes it. */
  temperature?: number;
  /** The most tokens one reply may have. */
  maxOutputTokens?: number;
  /** Nucleus sampling, as the AI SDK takes it. */
  topP?: number;
  /** Seed for providers that sample deterministically with one. */
  seed?: number;
  /** Retries of a failed model call, as the AI SDK makes them. */
  maxRetries?: number;
  /** Extra HTTP headers for the provider. */
  headers?: Record<string, string>;
  /** Options for the provider, passed through to the AI SDK as they are. */
  providerOptions?: Parameters<typeof streamText>[0]['providerOptions'];
}

/**
 * One model call's answer, as the tick uses it: text, reasoning, tool calls, why it finished and
 * what it cost.
 */
export interface ModelTurn {
  /** The reply's text. */
  text: string;
  /** Its reasoning text, where the provider returns it. */
  reasoning: string;
  /** The tool calls it asked for, in order. */
  toolCalls: TickToolCall[];
  /** Why the model stopped (`stop`, `tool-calls`, `length`, ...). */
  finishReason: string;
  /** Tokens this call used. */
  usage: UsageTotals;
  /** The provider's id of this answer and the model that gave it, when the provider said. */
  responseId?: string;
  /** The model that answered, when the provider said. */
  responseModel?: string;
}

export interface ModelCallOptions {
  model: LanguageModel;
  /** `false`: one `generateText` call, the whole text reported as a single delta. Default true. */
  streaming?: boolean;
  context: CompiledContext;
  signal: AbortSignal;
  settings?: ModelSettings;
  onDelta: (kind: 'text' | 'reasoning', delta: string) => void;
  /** The session's request forms of earlier ticks (each tick then converts only its new messages). */
  requestForms?: RequestFormCache;
}

/**
 * The request messages: the stable prefix, then this tick's ephemeral content last. With the
 * session's cache, the committed messages' request forms (see request-messages.ts); without
 * one (what telemetry records), the messages as they are.
 */
export function toRequestMessages(
  context: CompiledContext,
  cache?: RequestFormCache,
): ModelMessage[] {
  const forms = cache?.of(context.messages) ?? context.messages;
  if (context.ephemeral.length === 0) return forms as ModelMessage[];
  const messages = forms.slice();
  const text = context.ephemeral.map((block) => block.text).join('\n\n');
  // A user message, not a system one: several providers reject system messages mid-prompt.
  messages.push({ role: 'user', content: text });
  return messages;
}

type InputSchema = CompiledContext['tools'][number]['inputSchema'];

/**
 * Tools are offered without `execute`, so the AI SDK stops after one step and hands the
 * calls back: the runtime executes them itself and can intercept, validate and refuse.
 */
export function toSdkTools(context: CompiledContext): ToolSet {
  return toolSets.of(context.tools, NO_TOOLS);
}

const NO_TOOLS: ToolSet = {};

/**
 * One tool set per list of compiled tools in the process (compiled tools are kept per process:
 * renderer/compile-tool.ts), so the usual tick, and every session with the same tools, finds it
 * made. Made whole by `Object.fromEntries`: an object filled one keyed store at a time goes to
 * dictionary mode past a dozen properties, and the AI SDK walks the set with `Object.entries`
 * several times per call (two to three times slower on a dictionary).
 */
const toolSets = new PerToolList<ToolSet>((tools) =>
  Object.fromEntries(tools.map((t) => [t.name, sdkTool(t.inputSchema, t.description)])),
);

type SdkTool = ToolSet[string];
const toolCache = new WeakMap<object, Map<string | undefined, SdkTool>>();

/**
 * One AI SDK tool per (schema object, description), reused across ticks and sessions: the tree
 * renders the same tools every tick, and building them again is per-tick work for nothing.
 */
function sdkTool(schema: InputSchema, description: string | undefined): SdkTool {
  const make = () =>
    tool({
      ...(description !== undefined ? { description } : {}),
      inputSchema: sdkSchema(schema),
    });
  if (typeof schema !== 'object' || schema === null) return make();
  let byDescription = toolCache.get(schema);
  if (byDescription === undefined) {
    byDescription = new Map();
    toolCache.set(schema, byDescription);
  }
  let cached = byDescription.get(description);
  if (cached === undefined) {
    cached = make();
    // Bounded: a tree that makes a new description every tick would otherwise grow the map.
    if (byDescription.size >= 64) byDescription.clear();
    byDescription.set(description, cached);
  }
  return cached;
}

const schemaCache = new WeakMap<object, InputSchema>();

/**
 * The AI SDK converts a zod schema to JSON Schema on every call; its own schema object caches
 * the conversion. Tool elements keep their schema objects across ticks, so converting once per
 * schema object (not once per tick) removes most of the per-tick overhead.
 */
function sdkSchema(schema: InputSchema): InputSchema {
  if (typeof schema !== 'object' || schema === null) return schema;
  let cached = schemaCache.get(schema);
  if (cached === undefined) {
    cached = asSchema(schema) as InputSchema;
    schemaCache.set(schema, cached);
  }
  return cached;
}

/**
 * How the history reaches the AI SDK. Before its first step a `generateText` / `streamText`
 * call walks all its initial messages (tool approvals to resume, a copy for the loop), work a
 * plain loop pays once per run but a tick would pay on every call: at 3,000 messages the
 * approvals scan alone was the largest single cost of a tick. So the call starts from the
 * first message and its one step gets the whole history through `prepareStep`, the SDK's own
 * per-step override: the request the model receives is the same. Tools are offered without
 * `execute`, so there are no approvals for the SDK to resume. With the SDK's telemetry on, its
 * spans record the initial messages, so they get the whole history the plain way.
 */
function historyFor(
  messages: ModelMessage[],
  direct: boolean,
): { messages: ModelMessage[]; prepareStep?: () => { messages: ModelMessage[] } } {
  if (!direct || messages.length < 2) return { messages };
  return { messages: [messages[0]!], prepareStep: () => ({ messages }) };
}

/**
 * One AI SDK call (the `streamText` engine, a single step). Deltas stream out; calls come back
 * whole. The single-consumer variant is used because the runtime reads `fullStream` once and
 * needs no replay: it skips the stream tee and buffering, the largest per-tick cost measured.
 */
export function callModel(options: ModelCallOptions): Promise<ModelTurn> {
  const { context, signal, settings } = options;
  const messages = toRequestMessages(context, options.requestForms);
  if (messages.length === 0) {
    // The AI SDK would fail with "messages must not be empty"; say what the agent is missing.
    throw new InvalidElementError(
      'The agent rendered no messages, so there is nothing to send the model. ' +
        'Render the task as <User>…</User> (and <Timeline /> for the history).',
    );
  }
  const tools = toSdkTools(context);
  const telemetry = sdkTelemetrySetting();
  const request = {
    model: options.model,
    ...(context.system !== '' ? { instructions: context.system } : {}),
    ...historyFor(messages, telemetry === SDK_TELEMETRY_OFF),
    ...(context.tools.length > 0 ? { tools } : {}),
    abortSignal: signal,
    ...telemetry,
    ...settings,
  };
  // Each path's own promise, with no async layer of this function's around it (its problems,
  // as the empty request above, throw here: the caller's `try` takes them as rejections).
  if (options.streaming === false) return generateTurn(request, options);
  return streamTurn(request, options);
}

/** The streaming path: `streamText`'s parts read once, deltas passed on as they come. */
async function streamTurn(
  request: Parameters<typeof generateText>[0],
  options: ModelCallOptions,
): Promise<ModelTurn> {
  const { signal } = options;
  let failure: unknown;
  const result = streamTextLowMemory({
    ...request,
    // Errors surface as stream parts below; the default handler would also log them.
    onError: ({ error }) => {
      failure ??= error;
    },
  });

  let text = '';
  let reasoning = '';
  const toolCalls: TickToolCall[] = [];
  let finishReason = 'other';
  let usage: UsageTotals = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let response: { id?: string; modelId?: string } | undefined;

  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        options.onDelta('text', part.text);
        break;
      case 'reasoning-delta':
        reasoning += part.text;
        options.onDelta('reasoning', part.text);
        break;
      case 'tool-call':
        // Invalid calls (unknown tool, unparsable input) arrive here too, flagged; the runtime
        // answers them with its own tool error, so they are kept as ordinary calls.
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case 'finish-step':
        response = part.response;
        break;
      case 'finish':
        finishReason = part.finishReason;
        usage = toUsageTotals(part.totalUsage);
        break;
      case 'error':
        failure ??= part.error;
        break;
      case 'abort':
        signal.throwIfAborted();
        break;
      default:
        break;
    }
  }
  signal.throwIfAborted();
  if (failure !== undefined) {
    throw new ModelCallError(`The model call failed: ${errorMessage(failure)}`, {
      cause: failure,
    });
  }
  return { text, reasoning, toolCalls, finishReason, usage, ...responseIdentity(response) };
}

/** The response's id and model, left out when the provider sent none. */
function responseIdentity(
  response: { id?: string; modelId?: string } | undefined,
): Pick<ModelTurn, 'responseId' | 'responseModel'> {
  return {
    ...(response?.id ? { responseId: response.id } : {}),
    ...(response?.modelId ? { responseModel: response.modelId } : {}),
  };
}

/**
 * The non-streaming path, for providers or local servers whose streaming is unreliable, and
 * for hosts that want no per-delta work. Same request, same result shape.
 */
async function generateTurn(
  request: Parameters<typeof generateText>[0],
  options: ModelCallOptions,
): Promise<ModelTurn> {
  let result: Awaited<ReturnType<typeof generateText>>;
  try {
    result = await generateText(request);
  } catch (error) {
    options.signal.throwIfAborted();
    throw new ModelCallError(`The model call failed: ${errorMessage(error)}`, { cause: error });
  }
  options.signal.throwIfAborted();
  const reasoning = result.reasoningText ?? '';
  if (reasoning !== '') options.onDelta('reasoning', reasoning);
  if (result.text !== '') options.onDelta('text', result.text);
  return {
    text: result.text,
    reasoning,
    // Invalid calls are included, flagged, as in the stream; the runtime answers them.
    toolCalls: result.toolCalls.map((call) => ({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
    })),
    finishReason: result.finishReason,
    usage: toUsageTotals(result.totalUsage),
    ...responseIdentity(result.response),
  };
}

export function toUsageTotals(usage: LanguageModelUsage | undefined): UsageTotals {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
  };
}
