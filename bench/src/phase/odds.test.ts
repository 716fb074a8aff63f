import { describe, expect, it } from 'vitest';
import { fisherExact, mantelHaenszel, oddsRatio } from './odds.js';

describe('2×2 statistics against published results', () => {
  it("Fisher's exact test: R's fisher.test and SciPy's fisher_exact", () => {
    // Fisher's tea-tasting table (R's ?fisher.test): p = 0.4857.
    expect(fisherExact({ a: 3, b: 1, c: 1, d: 3 })).toBeCloseTo(0.4857142857, 9);
    // scipy.stats.fisher_exact([[1, 9], [11, 3]]).pvalue = 0.0027594561852200836.
    expect(fisherExact({ a: 1, b: 9, c: 11, d: 3 })).toBeCloseTo(0.00275945618522, 12);
    // A zero cell: scipy.stats.fisher_exact([[11, 0], [59, 180]]).pvalue = 4.52848053307471e-07.
    expect(fisherExact({ a: 11, b: 0, c: 59, d: 180 }) / 4.52848053307471e-7).toBeCloseTo(1, 9);
    // No association at all: p = 1.
    expect(fisherExact({ a: 5, b: 5, c: 5, d: 5 })).toBeCloseTo(1, 12);
  });

  it("the sample odds ratio with Woolf's interval: SciPy's odds_ratio(kind='sample')", () => {
    // scipy.stats.contingency.odds_ratio([[12, 5], [4, 9]], kind='sample'):
    // statistic 5.4, confidence_interval(0.95) = (1.1196239173596807, 26.04445970461733).
    const r = oddsRatio({ a: 12, b: 5, c: 4, d: 9 });
    expect(r.estimate).toBeCloseTo(5.4, 12);
    expect(r.low).toBeCloseTo(1.1196239173596807, 9);
    expect(r.high).toBeCloseTo(26.04445970461733, 8);
    expect(r.corrected).toBeUndefined();
    // A zero cell: ½ added to each cell, and said so.
    const z = oddsRatio({ a: 0, b: 10, c: 10, d: 10 });
    expect(z.corrected).toBe(true);
    expect(z.estimate).toBeCloseTo((0.5 * 10.5) / (10.5 * 10.5), 12);
  });

  it("the Mantel–Haenszel odds ratio: R's mantelhaen.test(UCBAdmissions)", () => {
    // Admitted/Rejected × Male/Female in departments A–F; R reports the common odds ratio
    // 0.9046968 with the 95% interval 0.7719074–1.0603298.
    const ucb = [
      { a: 512, b: 89, c: 313, d: 19 },
      { a: 353, b: 17, c: 207, d: 8 },
      { a: 120, b: 202, c: 205, d: 391 },
      { a: 138, b: 131, c: 279, d: 244 },
      { a: 53, b: 94, c: 138, d: 299 },
      { a: 22, b: 24, c: 351, d: 317 },
    ];
    const mh = mantelHaenszel(ucb)!;
    expect(mh.estimate).toBeCloseTo(0.9046968, 6);
    expect(mh.low).toBeCloseTo(0.7719074, 6);
    expect(mh.high).toBeCloseTo(1.0603298, 6);
  });

  it('with one stratum, Mantel–Haenszel is the sample odds ratio and its interval is Woolf’s', () => {
    const t = { a: 12, b: 5, c: 4, d: 9 };
    const mh = mantelHaenszel([t])!;
    const plain = oddsRatio(t);
    expect(mh.estimate).toBeCloseTo(plain.estimate, 12);
    expect(mh.low).toBeCloseTo(plain.low, 9);
    expect(mh.high).toBeCloseTo(plain.high, 9);
    // Strata of one run are left out; nothing at all is undefined.
    expect(mantelHaenszel([t, { a: 1, b: 0, c: 0, d: 0 }])!.estimate).toBeCloseTo(5.4, 12);
    expect(mantelHaenszel([{ a: 0, b: 0, c: 3, d: 4 }])).toBeUndefined();
  });
});
