import { describe, expect, it } from 'vitest';
import { SignatureIndex } from './signature-index.js';

/** Appends like commitProgress does: new signatures at the end, the oldest cut past `cap`. */
const append = (window: readonly string[], added: readonly string[], cap: number) =>
  Object.freeze([...window, ...added].slice(-cap));

describe('SignatureIndex', () => {
  it('answers like a set of the window while the window moves', () => {
    const index = new SignatureIndex();
    let window: readonly string[] = Object.freeze([]);
    // A repeating pattern, so signatures recur inside the window and leave it one at a time.
    for (let tick = 0; tick < 60; tick++) {
      const added = Array.from({ length: tick % 3 }, (_, i) => `s${(tick + i) % 7}`);
      const next = append(window, added, 8);
      index.of(window);
      index.advance(window, added, next);
      window = next;
      const view = index.of(window);
      for (let s = 0; s < 7; s++) expect(view.has(`s${s}`)).toBe(window.includes(`s${s}`));
    }
  });

  it('rebuilds when handed a window it did not follow (a restored session)', () => {
    const index = new SignatureIndex();
    expect(index.of(['a', 'b']).has('b')).toBe(true);
    expect(index.of(['c']).has('b')).toBe(false);
    // A window replaced behind its back is rebuilt from `after`, not patched.
    index.advance(['x'], ['y'], ['z']);
    expect(index.of(['z']).has('z')).toBe(true);
    expect(index.of(['z']).has('y')).toBe(false);
  });
});
