/**
 * Which frozen array a new one continues: `next` holds the items of `previous` from `at` on
 * (`same` of them), then new ones. Noted by the code that builds `next` that way (a tick's
 * timeline: the one before, trimmed at the front, plus the tick's messages), so a snapshot
 * checks only the new items instead of comparing the whole timeline again: on a busy machine,
 * reading a 4,000-message timeline's cold pointers costs more than the rest of a save.
 * `previous` is held weakly: a chain of strong ones would keep every timeline alive.
 */
const continuations = new WeakMap<
  readonly unknown[],
  { previous: WeakRef<readonly unknown[]>; at: number; same: number }
>();

/** Below this length comparing costs nothing worth noting. */
const MIN_LENGTH = 32;

export interface Continuation {
  previous: readonly unknown[];
  at: number;
  same: number;
}

/** `next` is `previous` less its first `dropped` items, then new items. */
export function noteContinuation(
  next: readonly unknown[],
  previous: readonly unknown[],
  dropped: number,
): void {
  const same = previous.length - dropped;
  if (same < MIN_LENGTH || same > next.length) return;
  continuations.set(next, { previous: new WeakRef(previous), at: dropped, same });
}

/** What `noteContinuation` said about `next`, while its `previous` is alive. */
export function continuationOf(next: readonly unknown[]): Continuation | undefined {
  const noted = continuations.get(next);
  const previous = noted?.previous.deref();
  return noted === undefined || previous === undefined
    ? undefined
    : { previous, at: noted.at, same: noted.same };
}
