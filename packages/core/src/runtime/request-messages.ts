import type { ModelMessage } from 'ai';

/**
 * The form of a committed (deep-frozen) message that is handed to the AI SDK: the same
 * message with an unfrozen copy of its `content` array (the parts themselves are shared and
 * stay frozen). V8's array builtins leave their fast path on frozen arrays, and the AI SDK
 * `filter`s and `map`s every message's content on every call: with frozen arrays its prompt
 * conversion cost about twice as much, on every message of the history, every tick.
 *
 * The copy is made once, when the message is committed, and kept on the message under a
 * non-enumerable symbol (invisible to JSON, structuredClone, snapshots and equality checks),
 * so a tick pays one property read per message. The timeline itself stays frozen.
 */
const REQUEST_FORM = Symbol('agate.request-form');

type WithForm = ModelMessage & { [REQUEST_FORM]?: ModelMessage };

const copyContent = (message: ModelMessage, content: readonly unknown[]) =>
  ({ ...message, content: [...content] }) as ModelMessage;

/** Gives a message about to be frozen its request form. */
export function attachRequestForm<T extends ModelMessage>(message: T): T {
  const { content } = message;
  if (typeof content !== 'string' && !Object.isFrozen(message)) {
    Object.defineProperty(message, REQUEST_FORM, { value: copyContent(message, content) });
  }
  return message;
}

const lateForms = new WeakMap<ModelMessage, ModelMessage>();

/** The messages to put in the request (see above): a plain loop, it runs over the whole history. */
export function requestForms(messages: readonly ModelMessage[]): ModelMessage[] {
  const forms = new Array<ModelMessage>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    forms[i] = (message as WithForm)[REQUEST_FORM] ?? requestForm(message);
  }
  return forms;
}

/** The message to put in the request (see above). */
export function requestForm(message: ModelMessage): ModelMessage {
  const { content } = message;
  if (typeof content === 'string') return message;
  const attached = (message as WithForm)[REQUEST_FORM];
  if (attached !== undefined) return attached;
  // Frozen without one (a seeded or restored timeline): made on first use, kept by identity.
  // A message that is not frozen may still change, and its arrays are fast anyway.
  if (!Object.isFrozen(content) || !Object.isFrozen(message)) return message;
  let form = lateForms.get(message);
  if (form === undefined) {
    form = copyContent(message, content);
    lateForms.set(message, form);
  }
  return form;
}

/**
 * A session's request forms from one tick to the next. The context's messages are the last
 * tick's plus what the tick added (the timeline only grows at its end, and compiled messages
 * keep their objects while their text is the same), so the forms of the common prefix, found by
 * identity, are taken as they were and only the new messages are looked up: at 3,000 messages a
 * tick looked up every form again.
 */
export class RequestFormCache {
  private input: readonly ModelMessage[] = [];
  private forms: ModelMessage[] = [];

  /** The request forms of `messages`; the array is shared until the next call, do not change it. */
  of(messages: readonly ModelMessage[]): readonly ModelMessage[] {
    const previous = this.input;
    const limit = Math.min(previous.length, messages.length);
    let same = 0;
    while (same < limit && previous[same] === messages[same]) same++;
    if (same === messages.length && same === this.forms.length) return this.forms;
    // A new array every time: one handed out earlier is never changed.
    const next = this.forms.slice(0, same);
    for (let i = same; i < messages.length; i++) {
      const message = messages[i]!;
      next.push((message as WithForm)[REQUEST_FORM] ?? requestForm(message));
    }
    this.input = messages;
    this.forms = next;
    return next;
  }
}
