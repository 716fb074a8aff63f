import { diffArrays } from 'diff';
import type { DiffLine } from './api-types.js';

export type { DiffLine } from './api-types.js';

/**
 * Above this many edits (a removed or an added line each) the middle is shown as
 * removed-then-added instead of aligned: giving up costs about edits² steps (some 40 ms at
 * 500 on this machine, 300 ms at 2,000), and two contexts that far apart are not worth aligning.
 */
const MAX_EDITS = 500;

/**
 * A line diff of `before` → `after`, with the `diff` package (Myers' algorithm: a shortest edit
 * script, so the kept lines are a longest common subsequence). Ticks mostly append to the
 * context: the common prefix and suffix are taken first, so a middle too different to align
 * within `MAX_EDITS` still shows them as kept.
 */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const out: DiffLine[] = before.slice(0, start).map((text) => ({ op: 'same', text }));
  out.push(...alignMiddle(before.slice(start, endBefore), after.slice(start, endAfter)));
  for (const text of before.slice(endBefore)) out.push({ op: 'same', text });
  return out;
}

function alignMiddle(a: string[], b: string[]): DiffLine[] {
  const changes =
    a.length === 0 || b.length === 0 ? undefined : diffArrays(a, b, { maxEditLength: MAX_EDITS });
  if (changes === undefined) {
    return [
      ...a.map((text): DiffLine => ({ op: 'remove', text })),
      ...b.map((text): DiffLine => ({ op: 'add', text })),
    ];
  }
  return changes.flatMap((change) => {
    const op = change.added ? 'add' : change.removed ? 'remove' : 'same';
    return change.value.map((text): DiffLine => ({ op, text }));
  });
}
