import { createElement, type ReactNode } from 'react';

export type MessageRole = 'user' | 'assistant';

/** A fixed message, placed in tree order among the other messages and the timeline. */
export function Message(props: { role: MessageRole; children?: ReactNode }): ReactNode {
  return createElement('agate-message', { role: props.role }, props.children);
}

export function User(props: { children?: ReactNode }): ReactNode {
  return createElement('agate-message', { role: 'user' }, props.children);
}

export function Assistant(props: { children?: ReactNode }): ReactNode {
  return createElement('agate-message', { role: 'assistant' }, props.children);
}
