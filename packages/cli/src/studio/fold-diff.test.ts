import { describe, expect, it } from 'vitest';
import type { DiffLine } from './api-types.js';
import { foldDiff } from './fold-diff.js';

const same = (text: string): DiffLine => ({ op: 'same', text });

describe('foldDiff', () => {
  it('keeps the changes with three lines around them and folds each unchanged run into one row', () => {
    const diff: DiffLine[] = [
      ...Array.from({ length: 10 }, (_, i) => same(`a${i}`)),
      { op: 'remove', text: 'old' },
      { op: 'add', text: 'new' },
      ...Array.from({ length: 10 }, (_, i) => same(`b${i}`)),
    ];
    expect(
      foldDiff(diff).map((r) => (r.kind === 'gap' ? `… ${r.count}` : `${r.op} ${r.text}`)),
    ).toEqual([
      '… 7',
      'same a7',
      'same a8',
      'same a9',
      'remove old',
      'add new',
      'same b0',
      'same b1',
      'same b2',
      '… 7',
    ]);
  });

  it('folds a diff with no change into one row, and keeps close changes together', () => {
    expect(foldDiff([same('x'), same('y')])).toEqual([{ kind: 'gap', count: 2 }]);
    const close: DiffLine[] = [{ op: 'add', text: '1' }, same('s'), { op: 'add', text: '2' }];
    expect(foldDiff(close).every((r) => r.kind === 'line')).toBe(true);
    expect(foldDiff([])).toEqual([]);
  });
});
