import type { ModelMessage } from 'ai';

/**
 * The form of a committed (deep-frozen) message that is handed to the AI SDK: the same
 * message with an unfrozen copy of its `content` array (the parts themselves are shared and
 * stay frozen). V8's array builtins leave their fast path on frozen arrays, and the AI SDK
 * `filter`s and `map`s every message's content on every call: with frozen arrays its prompt
 * conversion cost about twice as much, on every message of the history, every tick.
 *
 * A message that is not frozen may still change, and its arrays are fast anyway: it is its own
 * form, as is a message whose content is a string.
 */
function requestForm(message: ModelMessage): ModelMessage {
  const { content } = message;
  if (typeof content === 'string' || !Object.isFrozen(content) || !Object.isFrozen(message)) {
    return message;
  }
  if (message.role === 'tool') return { ...message, content: message.content.map(toolPartForm) };
  return { ...message, content: [...content] } as ModelMessage;
}

type ToolMessagePart = Extract<ModelMessage, { role: 'tool' }>['content'][number];

/**
 * A tool result whose output is a list of content parts (an MCP tool's result, an image) with
 * that list unfrozen too: the AI SDK walks it (`downloadAssets`) and maps it on every call, as
 * it does the message's content. Any other part is shared as it is.
 */
function toolPartForm(part: ToolMessagePart): ToolMessagePart {
  if (part.type !== 'tool-result' || part.output.type !== 'content') return part;
  return { ...part, output: { ...part.output, value: [...part.output.value] } };
}

/**
 * A session's request forms from one tick to the next. The context's messages are the last
 * tick's plus what the tick added (the timeline only grows at its end, and compiled messages
 * keep their objects while their text is the same), so the forms of the common prefix, found by
 * identity, are taken as they were and only the new messages get forms: at 3,000 messages a
 * tick looked up every form again.
 *
 * The forms are made here, when a request first needs them, and only this cache holds them.
 * Made at commit and kept on each message (a symbol property) instead, a tick at 3,000 messages
 * cost about 14% more (the last 100 ticks of a 1,500-tick run): the SDK reads every form's
 * message and content array on every call, and those forms' arrays were found scattered over
 * the heap, far from their messages.
 */
export class RequestFormCache {
  private input: readonly ModelMessage[] = [];
  private forms: ModelMessage[] = [];

  /** The request forms of `messages`; the array is shared until the next call, do not change it. */
  of(messages: readonly ModelMessage[]): readonly ModelMessage[] {
    const previous = this.input;
    const forms = this.forms;
    const limit = Math.min(previous.length, messages.length);
    let same = 0;
    while (same < limit && previous[same] === messages[same]) same++;
    if (same === messages.length && same === forms.length) return forms;
    // A history trimmed at its front (maxTimelineMessages) or cut after its first messages (a
    // context budget): the rest of the last input may still follow, further on. Its forms are
    // taken as they were, so a session at its cap does not make a form for every message on
    // every tick.
    let next = same;
    const from = same < messages.length ? previous.indexOf(messages[same]!, same + 1) : -1;
    let to = from;
    if (from !== -1) {
      while (next < messages.length && to < previous.length && previous[to] === messages[next]) {
        next++;
        to++;
      }
    }
    // A new array every time: one handed out earlier is never changed. Made whole by one
    // `concat` (exact size): pushing onto a copy of the prefix grew it, copying the whole
    // history a second time each tick and leaving spare capacity that an idle session keeps.
    const added: ModelMessage[] = [];
    for (let i = next; i < messages.length; i++) added.push(requestForm(messages[i]!));
    const kept = same === forms.length ? forms : forms.slice(0, same);
    const result = from === -1 ? kept.concat(added) : kept.concat(forms.slice(from, to), added);
    this.input = messages;
    this.forms = result;
    return result;
  }

  /**
   * Forgets the forms (a run ended): an idle session need not hold a request-form copy of its
   * history; the next run's first tick makes them again, once.
   */
  clear(): void {
    this.input = [];
    this.forms = [];
  }
}
