/**
 * How a save writes a snapshot's timeline: the rows already stored are a window of
 * `count` messages numbered from `start`; a tick adds messages at the end and may drop some
 * from the front (`maxTimelineMessages`). The stored window keeps the JSON of its last few
 * messages (`tail`), so a save finds where its timeline goes on by comparing a few messages,
 * not all of them: the cost of a save is its new messages, not the length of the session.
 */
export interface StoredWindow {
  start: number;
  count: number;
  /** `tailOf` the stored messages. */
  tail: string;
}

export type TimelinePlan =
  /** Drop `drop` rows from the front, insert the messages from index `from` on. */
  | { kind: 'append'; drop: number; from: number }
  /** Nothing matches (edited, rewound, first save): replace every row. */
  | { kind: 'rewrite' };

/** How many of the last messages identify where a timeline goes on. */
export const TAIL_SIZE = 3;

/** The fingerprint of a timeline's end: its last TAIL_SIZE messages as JSON. */
export function tailOf(messages: readonly unknown[], end = messages.length): string {
  return JSON.stringify(messages.slice(Math.max(0, end - TAIL_SIZE), end));
}

export function planTimeline(
  stored: StoredWindow | undefined,
  timeline: readonly unknown[],
): TimelinePlan {
  if (stored === undefined) return { kind: 'rewrite' };
  if (stored.count === 0) return { kind: 'append', drop: 0, from: 0 };
  // `last`: where the stored window's last message is in the new timeline. Most likely
  // nothing was dropped (last = count - 1); otherwise earlier, by the number dropped.
  const need = Math.min(TAIL_SIZE, stored.count);
  for (let last = Math.min(stored.count - 1, timeline.length - 1); last >= need - 1; last--) {
    if (tailOf(timeline, last + 1) === stored.tail) {
      return { kind: 'append', drop: stored.count - 1 - last, from: last + 1 };
    }
  }
  return { kind: 'rewrite' };
}
