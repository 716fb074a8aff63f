import { describe, expect, it } from 'vitest';
import { type DiffLine, diffLines } from './line-diff.js';

const show = (diff: DiffLine[]) =>
  diff.map((d) => `${d.op === 'same' ? ' ' : d.op === 'add' ? '+' : '-'}${d.text}`);

/** Applying the diff's kept and added lines gives `after`; kept and removed give `before`. */
function sides(diff: DiffLine[]) {
  return {
    before: diff.filter((d) => d.op !== 'add').map((d) => d.text),
    after: diff.filter((d) => d.op !== 'remove').map((d) => d.text),
  };
}

describe('diffLines', () => {
  it('shows an appended tick as added lines after the kept ones', () => {
    expect(
      show(diffLines(['system', 'user: hi'], ['system', 'user: hi', 'assistant: hello'])),
    ).toEqual([' system', ' user: hi', '+assistant: hello']);
  });

  it('aligns a change in the middle (a pruned message, a changed gate line)', () => {
    expect(show(diffLines(['a', 'b', 'c', 'd', 'e'], ['a', 'c', 'x', 'd', 'e']))).toEqual([
      ' a',
      '-b',
      ' c',
      '+x',
      ' d',
      ' e',
    ]);
  });

  it('handles empty sides', () => {
    expect(show(diffLines([], ['a']))).toEqual(['+a']);
    expect(show(diffLines(['a'], []))).toEqual(['-a']);
    expect(diffLines([], [])).toEqual([]);
  });

  it('always reproduces both texts, and keeps a longest common subsequence', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 200; round++) {
      const before = Array.from({ length: next() % 12 }, () => `l${next() % 4}`);
      const after = Array.from({ length: next() % 12 }, () => `l${next() % 4}`);
      const diff = diffLines(before, after);
      expect(sides(diff)).toEqual({ before, after });
      const kept = diff.filter((d) => d.op === 'same').length;
      expect(kept).toBe(lcsLength(before, after));
    }
  });

  it('aligns a long middle with few changes (Myers: the cost follows the edits, not lines × lines)', () => {
    const before = Array.from({ length: 5_000 }, (_, i) => `line ${i}`);
    const after = before.map((line, i) => (i % 500 === 250 ? `changed ${i}` : line));
    after[0] = 'first changed';
    after[4_999] = 'last changed';
    const diff = diffLines(before, after);
    expect(sides(diff)).toEqual({ before, after });
    expect(diff.filter((d) => d.op === 'same')).toHaveLength(5_000 - 12);
  });

  it('falls back to removed-then-added for a middle too different to align, still exact', () => {
    const before = Array.from({ length: 2_100 }, (_, i) => `old ${i}`);
    const after = Array.from({ length: 2_100 }, (_, i) => `new ${i}`);
    const diff = diffLines(before, after);
    expect(sides(diff)).toEqual({ before, after });
    expect(diff[0]?.op).toBe('remove');
  });
});

/** A plain reference implementation to check against. */
function lcsLength(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] as number;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(up, row[j - 1] as number);
      diagonal = up;
    }
  }
  return row[b.length] as number;
}
