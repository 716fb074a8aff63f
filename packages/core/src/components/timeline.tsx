import type { ModelMessage } from 'ai';
import { createElement, type ReactNode, useMemo } from 'react';
import { tailOfTimeline } from '../state/timeline.js';
import { useTimeline } from './session-state-context.js';

/**
 * Props of `<Timeline>`: how much of the conversation's history to show, and how it yields to a
 * budget.
 */
export interface TimelineProps {
  /** Show only the most recent messages (never starting on an orphaned tool result). */
  last?: number;
  /** With a context budget: the history's priority (default 0); its oldest messages go first. */
  priority?: number;
  /** With a context budget: the newest `keepLast` messages are never dropped. */
  keepLast?: number;
}

/**
 * The session's history. One host node carries the whole array, so a 10,000-message timeline
 * costs the renderer one element, not 10,000.
 */
export function Timeline(props: TimelineProps): ReactNode {
  const timeline = useTimeline();
  const messages: readonly ModelMessage[] = useMemo(
    () => (props.last === undefined ? timeline : tailOfTimeline(timeline, props.last)),
    [timeline, props.last],
  );
  const { priority, keepLast } = props;
  return createElement('agate-timeline', { messages, priority, keepLast });
}
