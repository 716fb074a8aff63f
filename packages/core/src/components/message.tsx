import { createElement, type ReactNode } from 'react';

/** Whose message a fixed `<Message>` is. */
export type MessageRole = 'user' | 'assistant';

/** Props of `<User>`, `<Assistant>` and `<Message>`: the text as children. */
export interface MessageProps {
  /** The message's text. */
  children?: ReactNode;
  /** With a context budget: may be dropped, lowest priority first. Without one it is never dropped. */
  priority?: number;
}

/** A fixed message, placed in tree order among the other messages and the timeline. */
export function Message(props: MessageProps & { role: MessageRole }): ReactNode {
  return createElement('agate-message', messageProps(props.role, props), props.children);
}

/** A fixed user message, placed in tree order among the other messages and the timeline. */
export function User(props: MessageProps): ReactNode {
  return createElement('agate-message', messageProps('user', props), props.children);
}

/** A fixed assistant message, placed in tree order among the other messages and the timeline. */
export function Assistant(props: MessageProps): ReactNode {
  return createElement('agate-message', messageProps('assistant', props), props.children);
}

function messageProps(role: MessageRole, props: MessageProps): Record<string, unknown> {
  return props.priority === undefined ? { role } : { role, priority: props.priority };
}
