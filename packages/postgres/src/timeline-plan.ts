/**
 * How a save writes a list kept as rows (the timeline, the call signatures): the rows already
 * stored are a window of `count` items numbered from `start`; a tick adds items at the end and
 * may drop some from the front (`maxTimelineMessages`, the signatures' cap). A store that made
 * the stored save still holds the (frozen) list it wrote and finds where the new one goes on
 * by identity (`planByIdentity`), so a save costs its new items, not the length of the session.
 * Otherwise the stored window's last few items as JSON (`tail`) give a candidate
 * (`planTimeline`), which the store checks against a digest of the stored rows before using it.
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

/** How many places `planByIdentity` tries for where the stored list goes on (the drop). */
const IDENTITY_TRIES = 8;

/**
 * Where `next` goes on from `previous`, the list this store wrote in the stored save (the same
 * frozen items, compared by identity, or by value for strings): `next` must be `previous` less
 * some items at the front, then new items. Undefined when it is not (edited, rewound, a copy),
 * which the caller settles another way. Pointer comparisons only: no item is serialized.
 */
export function planByIdentity(
  previous: readonly unknown[],
  next: readonly unknown[],
): TimelinePlan | undefined {
  // Emptied: every stored item dropped; nothing stored yet: everything is new.
  if (next.length === 0 || previous.length === 0) {
    return { kind: 'append', drop: previous.length, from: 0 };
  }
  let tries = 0;
  for (let drop = 0; drop < previous.length && tries < IDENTITY_TRIES; drop++) {
    if (previous[drop] !== next[0]) continue;
    tries++;
    const kept = previous.length - drop;
    if (kept > next.length) continue;
    let same = true;
    for (let i = 1; i < kept; i++) {
      if (previous[drop + i] !== next[i]) {
        same = false;
        break;
      }
    }
    if (same) return { kind: 'append', drop, from: kept };
  }
  return undefined;
}
