import type { ModelMessage } from 'ai';

/**
 * The last `count` messages, moved forward past any leading tool message: a tool result
 * whose call was cut off is rejected by providers.
 */
export function tailOfTimeline(
  timeline: readonly ModelMessage[],
  count: number,
): readonly ModelMessage[] {
  const start = tailStart(timeline, count);
  if (start === 0) return timeline;
  // Copied by a loop, not `slice`: on a frozen array (the session's timeline) V8's `slice` leaves
  // its fast path, about 30 µs for 1,000 messages; the loop's cost is the messages kept.
  const kept: ModelMessage[] = [];
  for (let i = start; i < timeline.length; i++) kept.push(timeline[i]!);
  return kept;
}

/** Where `tailOfTimeline(timeline, count)` starts: how many messages it leaves out. */
export function tailStart(timeline: readonly ModelMessage[], count: number): number {
  if (count >= timeline.length) return 0;
  let start = Math.max(0, timeline.length - Math.max(0, Math.floor(count)));
  while (start < timeline.length && timeline[start]?.role === 'tool') start += 1;
  return start;
}
