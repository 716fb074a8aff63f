import { createElement, type ReactNode } from 'react';

/** System text: the stable head of every request. Several <System>s join with blank lines. */
export function System(props: { children?: ReactNode; priority?: number }): ReactNode {
  const { priority } = props;
  return createElement(
    'agate-system',
    priority === undefined ? null : { priority },
    props.children,
  );
}

/** A titled block (a Markdown heading) inside system, message or ephemeral text. */
export function Section(props: {
  title?: string;
  children?: ReactNode;
  /** With a context budget: may be dropped from the system text, lowest priority first. */
  priority?: number;
}): ReactNode {
  const { title, priority } = props;
  return createElement(
    'agate-section',
    priority === undefined ? { title } : { title, priority },
    props.children,
  );
}

/** Content the model sees on this tick only, placed after the stable prefix; never stored. */
export function Ephemeral(props: {
  children?: ReactNode;
  source?: string;
  /** With a context budget: only an ephemeral block with a priority may be dropped. */
  priority?: number;
}): ReactNode {
  const { source, priority } = props;
  return createElement(
    'agate-ephemeral',
    priority === undefined ? { source } : { source, priority },
    props.children,
  );
}
