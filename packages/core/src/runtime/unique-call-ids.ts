import type {
  LanguageModelV4,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';

/** One id the runtime changed: the response's `from`, the timeline's `to`. */
export interface RenamedCallId {
  from: string;
  to: string;
}

/**
 * Gives every tool call of one response its own id. Some OpenAI-compatible servers send
 * `call_0` for every call; the AI SDK then pairs inputs and results by id, so the second call
 * would run with the first call's input and both results would answer the first call. The
 * first call keeps its id; the k-th repeat becomes `<id>~k` (skipping ids the response already
 * uses), deterministically, before the AI SDK sees the response.
 */
export class CallIdRenamer {
  private readonly counts = new Map<string, number>();
  private readonly used = new Set<string>();
  readonly renamed: RenamedCallId[] = [];

  /** The id a call with `id` gets (call once per call, in response order). */
  next(id: string): string {
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.set(id, count);
    if (count === 1 && !this.used.has(id)) {
      this.used.add(id);
      return id;
    }
    let k = Math.max(count, 2);
    while (this.used.has(`${id}~${k}`)) k++;
    const to = `${id}~${k}`;
    this.used.add(to);
    this.renamed.push({ from: id, to });
    return to;
  }
}

/** Renames repeated ids in a whole (generated) response's content. */
export function uniqueContentIds(
  content: readonly LanguageModelV4Content[],
  renamer = new CallIdRenamer(),
): LanguageModelV4Content[] {
  return content.map((part) =>
    part.type === 'tool-call' ? { ...part, toolCallId: renamer.next(part.toolCallId) } : part,
  );
}

/**
 * Renames repeated ids in a stream. A call's input parts (`tool-input-start/delta/end`) and its
 * `tool-call` part share the renamed id: the start assigns it, the call part takes it over.
 */
export function uniqueStreamIds(
  renamer: CallIdRenamer,
  onEnd?: () => void,
): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  const streaming = new Map<string, string>();
  const awaitingCall = new Map<string, string>();
  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        case 'tool-input-start': {
          const to = renamer.next(part.id);
          streaming.set(part.id, to);
          awaitingCall.set(part.id, to);
          controller.enqueue({ ...part, id: to });
          return;
        }
        case 'tool-input-delta':
        case 'tool-input-end':
          controller.enqueue({ ...part, id: streaming.get(part.id) ?? part.id });
          return;
        case 'tool-call': {
          const started = awaitingCall.get(part.toolCallId);
          awaitingCall.delete(part.toolCallId);
          const to = started ?? renamer.next(part.toolCallId);
          controller.enqueue({ ...part, toolCallId: to });
          return;
        }
        default:
          controller.enqueue(part);
      }
    },
    flush: onEnd,
  });
}

function severalToolCalls(content: readonly LanguageModelV4Content[]): boolean {
  let calls = 0;
  for (const part of content) if (part.type === 'tool-call' && ++calls > 1) return true;
  return false;
}

/**
 * The session's model with unique call ids per response. `onRenamed` hears of each response
 * that had repeats (the session turns it into one warning event). A model given by id string
 * (resolved by the AI SDK's global provider) is used as it is.
 */
export function withUniqueCallIds(
  model: LanguageModel,
  onRenamed: (renamed: readonly RenamedCallId[]) => void,
): LanguageModel {
  if (typeof model !== 'object' || model === null) return model;
  const uniqueGenerate = (result: Awaited<ReturnType<LanguageModelV4['doGenerate']>>) => {
    // One tool call (or none) cannot repeat an id: the response is passed on as it is.
    if (!severalToolCalls(result.content)) return result;
    const renamer = new CallIdRenamer();
    const content = uniqueContentIds(result.content, renamer);
    if (renamer.renamed.length > 0) onRenamed(renamer.renamed);
    return { ...result, content };
  };
  const uniqueStream = (result: Awaited<ReturnType<LanguageModelV4['doStream']>>) => {
    const { stream, ...rest } = result;
    const renamer = new CallIdRenamer();
    const ids = uniqueStreamIds(renamer, () => {
      if (renamer.renamed.length > 0) onRenamed(renamer.renamed);
    });
    return { stream: stream.pipeThrough(ids), ...rest };
  };
  if (model.specificationVersion === 'v4') {
    // The same as `wrapLanguageModel` with this middleware, without its per-call layers (a
    // parameter transform to await, closures and async wrappers around each call).
    const v4 = model as LanguageModelV4;
    return {
      specificationVersion: 'v4',
      provider: v4.provider,
      modelId: v4.modelId,
      supportedUrls: v4.supportedUrls,
      doGenerate: async (params) => uniqueGenerate(await v4.doGenerate(params)),
      doStream: async (params) => uniqueStream(await v4.doStream(params)),
    } satisfies LanguageModelV4;
  }
  // Older specification versions: the AI SDK adapts them to v4 first.
  const middleware: LanguageModelMiddleware = {
    wrapGenerate: async ({ doGenerate }) => uniqueGenerate(await doGenerate()),
    wrapStream: async ({ doStream }) => uniqueStream(await doStream()),
  };
  return wrapLanguageModel({
    model: model as Parameters<typeof wrapLanguageModel>[0]['model'],
    middleware,
  });
}
