import { describe, expect, it } from 'vitest';
import { LastOf } from './last-of.js';

describe('LastOf', () => {
  it('gives the kept value only for the same input objects', () => {
    const last = new LastOf<string[]>();
    const a = [1];
    const b = { x: 1 };
    expect(last.get(a, b)).toBeUndefined();
    const value = last.set(a, b, ['v']);
    expect(last.get(a, b)).toBe(value);
    expect(last.get([1], b)).toBeUndefined();
    expect(last.get(a, { x: 1 })).toBeUndefined();
    expect(last.get(a, undefined)).toBeUndefined();
  });

  it('is empty at first, even for undefined inputs, and keeps only the latest', () => {
    const last = new LastOf<{ n: number }>();
    expect(last.get(undefined, undefined)).toBeUndefined();
    const one = last.set(undefined, undefined, { n: 1 });
    expect(last.get(undefined, undefined)).toBe(one);
    const input = {};
    last.set(input, undefined, { n: 2 });
    expect(last.get(undefined, undefined)).toBeUndefined();
    expect(last.get(input, undefined)).toEqual({ n: 2 });
  });
});
