import { createElement, type ReactNode } from 'react';

/** System text: the stable head of every request. Several <System>s join with blank lines. */
export function System(props: { children?: ReactNode }): ReactNode {
  return createElement('agate-system', null, props.children);
}

/** A titled block (a Markdown heading) inside system, message or ephemeral text. */
export function Section(props: { title?: string; children?: ReactNode }): ReactNode {
  return createElement('agate-section', { title: props.title }, props.children);
}

/** Content the model sees on this tick only, placed after the stable prefix; never stored. */
export function Ephemeral(props: { children?: ReactNode; source?: string }): ReactNode {
  return createElement('agate-ephemeral', { source: props.source }, props.children);
}
