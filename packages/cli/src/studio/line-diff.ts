/** One line of a diff: kept, added (only in the new text) or removed (only in the old). */
export interface DiffLine {
  op: 'same' | 'add' | 'remove';
  text: string;
}

/** Above this many cells the middle is shown as removed-then-added instead of aligned. */
const MAX_CELLS = 4_000_000;

/**
 * A line diff of `before` → `after`. Ticks mostly append to the context, so the common prefix
 * and suffix are taken first and only the middle is aligned (longest common subsequence);
 * a middle too large to align within bounds is shown as removed, then added.
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
  for (let i = endBefore; i < before.length; i++)
    out.push({ op: 'same', text: before[i] as string });
  return out;
}

function alignMiddle(a: readonly string[], b: readonly string[]): DiffLine[] {
  const removed = a.map((text): DiffLine => ({ op: 'remove', text }));
  const added = b.map((text): DiffLine => ({ op: 'add', text }));
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_CELLS) {
    return [...removed, ...added];
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number)) {
      out.push({ op: 'remove', text: a[i++] as string });
    } else {
      out.push({ op: 'add', text: b[j++] as string });
    }
  }
  while (i < a.length) out.push({ op: 'remove', text: a[i++] as string });
  while (j < b.length) out.push({ op: 'add', text: b[j++] as string });
  return out;
}
