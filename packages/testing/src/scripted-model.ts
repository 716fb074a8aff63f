import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

export interface ScriptedToolCall {
  toolName: string;
  /** Arguments: an object is sent as JSON; a string is sent as is (to script malformed JSON). */
  input?: unknown;
  toolCallId?: string;
}

export interface ScriptedReply {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults: input ≈ prompt characters / 4, output ≈ reply characters / 4. */
  usage?: { inputTokens?: number; outputTokens?: number };
  finishReason?: LanguageModelV4FinishReason['unified'];
  /** Makes this call fail the way a provider error would. */
  error?: unknown;
  /** Wait before replying (abortable), to test aborts and timeouts. */
  delayMs?: number;
}

export interface ScriptedCall {
  /** 0-based index of this model call. */
  index: number;
  options: LanguageModelV4CallOptions;
}

/** One model call's reply: text, a reply object, or a function of the request. */
export type ScriptedTurn =
  | string
  | ScriptedReply
  | ((call: ScriptedCall) => string | ScriptedReply);

export interface ScriptedModelOptions {
  /** What happens when the script runs out: an error (default) or repeating the last turn. */
  whenExhausted?: 'error' | 'repeat-last';
  modelId?: string;
}

export class ScriptExhaustedError extends Error {
  constructor(turns: number, call: number) {
    super(
      `scriptedModel: the script has ${turns} turn${turns === 1 ? '' : 's'} but the model was called ` +
        `a ${ordinal(call)} time. Add turns, or pass { whenExhausted: 'repeat-last' }.`,
    );
    this.name = 'ScriptExhaustedError';
  }
}

export type ScriptedModel = MockLanguageModelV4 & {
  /** Every call's options (prompt, tools, ...) in order. */
  readonly calls: LanguageModelV4CallOptions[];
};

/**
 * An AI SDK language model that replies from a script, one turn per call, through the real
 * `doStream`/`doGenerate` protocol — so runs in tests take the same path as with a provider.
 */
export function scriptedModel(
  turns: readonly ScriptedTurn[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const calls: LanguageModelV4CallOptions[] = [];
  let callIds = 0;

  const next = async (callOptions: LanguageModelV4CallOptions): Promise<ScriptedReply> => {
    const index = calls.length;
    calls.push(callOptions);
    let turn = turns[index];
    if (turn === undefined) {
      if (options.whenExhausted === 'repeat-last' && turns.length > 0) turn = turns.at(-1);
      else throw new ScriptExhaustedError(turns.length, index + 1);
    }
    const resolved = typeof turn === 'function' ? turn({ index, options: callOptions }) : turn;
    const reply: ScriptedReply =
      typeof resolved === 'string' ? { text: resolved } : (resolved ?? {});
    if (reply.delayMs) await delay(reply.delayMs, callOptions.abortSignal);
    callOptions.abortSignal?.throwIfAborted();
    if (reply.error !== undefined) throw reply.error;
    return reply;
  };

  /** `response-<n>`: the n-th call's answer (1-based), what a provider's response id is. */
  const responseId = () => `response-${calls.length}`;

  const toolCallsOf = (reply: ScriptedReply) =>
    (reply.toolCalls ?? []).map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.toolCallId ?? `call-${++callIds}`,
      toolName: call.toolName,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
    }));

  const model = new MockLanguageModelV4({
    provider: 'agate-scripted',
    modelId: options.modelId ?? 'scripted',
    doGenerate: async (callOptions): Promise<LanguageModelV4GenerateResult> => {
      const reply = await next(callOptions);
      const content: LanguageModelV4Content[] = [];
      if (reply.reasoning) content.push({ type: 'reasoning', text: reply.reasoning });
      if (reply.text) content.push({ type: 'text', text: reply.text });
      const calls = toolCallsOf(reply);
      content.push(...calls);
      return {
        content,
        finishReason: finishReason(reply, calls.length),
        usage: usageOf(reply, callOptions, calls),
        // The same id either way, so a run reads the same streamed or not.
        response: { id: responseId(), modelId: model.modelId },
        warnings: [],
      };
    },
    doStream: async (callOptions) => {
      const reply = await next(callOptions);
      const calls = toolCallsOf(reply);
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: responseId(), modelId: model.modelId },
      ];
      if (reply.reasoning) {
        parts.push({ type: 'reasoning-start', id: 'r' });
        parts.push({ type: 'reasoning-delta', id: 'r', delta: reply.reasoning });
        parts.push({ type: 'reasoning-end', id: 'r' });
      }
      if (reply.text) {
        parts.push({ type: 'text-start', id: 't' });
        // Word-sized deltas, so streaming consumers see more than one chunk.
        for (const piece of reply.text.match(/\S+\s*|\s+/g) ?? []) {
          parts.push({ type: 'text-delta', id: 't', delta: piece });
        }
        parts.push({ type: 'text-end', id: 't' });
      }
      parts.push(...calls);
      parts.push({
        type: 'finish',
        finishReason: finishReason(reply, calls.length),
        usage: usageOf(reply, callOptions, calls),
      });
      return { stream: streamOf(parts) };
    },
  });
  return Object.assign(model, { calls }) as ScriptedModel;
}

function streamOf<T>(parts: T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

function finishReason(reply: ScriptedReply, calls: number): LanguageModelV4FinishReason {
  const unified = reply.finishReason ?? (calls > 0 ? 'tool-calls' : 'stop');
  return { unified, raw: unified };
}

function usageOf(
  reply: ScriptedReply,
  options: LanguageModelV4CallOptions,
  calls: Array<{ input: string }>,
): LanguageModelV4Usage {
  const input = reply.usage?.inputTokens ?? Math.ceil(JSON.stringify(options.prompt).length / 4);
  const outputChars =
    (reply.text ?? '').length +
    (reply.reasoning ?? '').length +
    calls.reduce((n, c) => n + c.input.length, 0);
  const output = reply.usage?.outputTokens ?? Math.ceil(outputChars / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // The listener goes when the wait ends: one signal may serve many delayed calls.
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function ordinal(n: number): string {
  const suffix =
    n % 10 === 1 && n % 100 !== 11
      ? 'st'
      : n % 10 === 2 && n % 100 !== 12
        ? 'nd'
        : n % 10 === 3 && n % 100 !== 13
          ? 'rd'
          : 'th';
  return `${n}${suffix}`;
}
