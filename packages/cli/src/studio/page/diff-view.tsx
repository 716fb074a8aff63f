import { useMemo } from 'react';
import type { DiffLine } from '../api-types.js';
import { foldDiff } from '../fold-diff.js';

const MARK = { same: '  ', add: '+ ', remove: '- ' } as const;

/** A tick's context against the tick before (unchanged runs folded), or whole for the first. */
export function DiffView(props: { diff: DiffLine[] | undefined; lines: string[] }) {
  const { diff, lines } = props;
  const rows = useMemo(
    () =>
      diff === undefined
        ? lines.map((text) => ({ kind: 'line' as const, op: 'same' as const, text }))
        : foldDiff(diff),
    [diff, lines],
  );
  const unchanged = diff?.every((line) => line.op === 'same') === true;
  return (
    <div id="diff">
      {unchanged && <div className="gap">(no change)</div>}
      {rows.map((row, i) =>
        row.kind === 'gap' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions in one diff, replaced whole.
          <div key={i} className="gap">
            … {row.count} unchanged line{row.count === 1 ? '' : 's'}
          </div>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions in one diff, replaced whole.
          <div key={i} className={row.op}>
            {MARK[row.op] + row.text}
          </div>
        ),
      )}
    </div>
  );
}
