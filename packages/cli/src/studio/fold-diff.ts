import type { DiffLine } from './api-types.js';

/** A row of the diff as the page shows it: a line, or a fold of unchanged lines. */
export type DiffRow =
  | { kind: 'line'; op: DiffLine['op']; text: string }
  | { kind: 'gap'; count: number };

/**
 * The changed lines of a diff with `context` lines around each; every run of unchanged lines
 * between them folds into one row that says how many it hides.
 */
export function foldDiff(diff: readonly DiffLine[], context = 3): DiffRow[] {
  const shown = new Array<boolean>(diff.length).fill(false);
  diff.forEach((line, i) => {
    if (line.op === 'same') return;
    const last = Math.min(diff.length - 1, i + context);
    for (let k = Math.max(0, i - context); k <= last; k++) shown[k] = true;
  });
  const rows: DiffRow[] = [];
  for (let i = 0; i < diff.length; ) {
    if (shown[i]) {
      const { op, text } = diff[i++]!;
      rows.push({ kind: 'line', op, text });
      continue;
    }
    let j = i;
    while (j < diff.length && !shown[j]) j++;
    rows.push({ kind: 'gap', count: j - i });
    i = j;
  }
  return rows;
}
