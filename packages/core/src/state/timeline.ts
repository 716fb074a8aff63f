import type { ModelMessage } from 'ai';

/**
 * The last `count` messages, moved forward past any leading tool message: a tool result
 * whose call was cut off is rejected by providers.
 */
export function tailOfTimeline(
  timeline: readonly ModelMessage[],
  count: number,
): readonly ModelMessage[] {
  if (count >= timeline.length) return timeline;
  let start = Math.max(0, timeline.length - Math.max(0, Math.floor(count)));
  while (start < timeline.length && timeline[start]?.role === 'tool') start += 1;
  return timeline.slice(start);
}
