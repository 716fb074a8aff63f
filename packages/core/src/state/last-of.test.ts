import { describe, expect, it } from 'vitest';
import { LastOf } from './last-of.js';

describe('LastOf', () => {
  it('makes the value again only when an input is another object', () => {
    const last = new LastOf<string[]>();
    const a = [1];
    const b = { x: 1 };
    let made = 0;
    const make = () => {
      made++;
      return [`v${made}`];
    };
    const first = last.of(a, b, make);
    expect(last.of(a, b, make)).toBe(first);
    expect(made).toBe(1);
    expect(last.of([1], b, make)).toEqual(['v2']);
    expect(last.of(a, { x: 1 }, make)).toEqual(['v3']);
    expect(made).toBe(3);
  });

  it('is empty at first, even for undefined inputs, and keeps the old value when make throws', () => {
    const last = new LastOf<number>();
    expect(last.of(undefined, undefined, () => 1)).toBe(1);
    expect(last.of(undefined, undefined, () => 2)).toBe(1);
    const input = {};
    expect(() =>
      last.of(input, undefined, () => {
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(last.of(undefined, undefined, () => 3)).toBe(1);
  });
});
