import { describe, expect, it } from 'vitest';
import { budgetSlope, SLOPE_WINDOW } from './slope.js';

describe('budgetSlope', () => {
  it('is 0 without enough points for a trend', () => {
    expect(budgetSlope(undefined)).toBe(0);
    expect(budgetSlope([])).toBe(0);
    expect(budgetSlope([100])).toBe(0);
    expect(budgetSlope([100, 200])).toBe(0);
  });

  it('is 0 for flat spend, however large', () => {
    expect(budgetSlope([5000, 5000, 5000, 5000])).toBe(0);
  });

  it('is the per-step slope divided by the mean', () => {
    // slope 2 tokens/step over a mean of 100 tokens: 2% growth per step
    expect(budgetSlope([98, 100, 102])).toBeCloseTo(0.02, 12);
    expect(budgetSlope([102, 100, 98])).toBeCloseTo(-0.02, 12);
  });

  it('does not depend on the scale of spend', () => {
    const small = [10, 11, 12, 13, 14];
    expect(budgetSlope(small.map((t) => t * 1000))).toBeCloseTo(budgetSlope(small), 12);
  });

  it('reads a steady real run as flat, unlike a cumulative regression would', () => {
    // 1,000 tokens every step: cumulative spend has slope 1,000, per-step spend has slope 0.
    expect(budgetSlope(Array.from({ length: 40 }, () => 1000))).toBe(0);
  });

  it('only looks at the last SLOPE_WINDOW entries', () => {
    const old = Array.from({ length: 50 }, (_, i) => 10 + i * 100);
    const recent = Array.from({ length: SLOPE_WINDOW }, () => 700);
    expect(budgetSlope([...old, ...recent])).toBe(0);
  });

  it('is 0 when the mean is not positive', () => {
    expect(budgetSlope([0, 0, 0])).toBe(0);
    expect(budgetSlope([-10, 0, 5])).toBe(0);
  });

  it('skips non-finite entries (steps whose usage was not reported)', () => {
    expect(budgetSlope([98, Number.NaN, 100, Number.POSITIVE_INFINITY, 102])).toBeCloseTo(0.02, 12);
    expect(budgetSlope([Number.NaN, Number.NaN, Number.NaN, 100])).toBe(0);
  });

  it('returns 0 rather than a non-finite slope on overflow', () => {
    expect(budgetSlope([1e308, 1e308, 1.7e308])).toBe(0);
  });
});
