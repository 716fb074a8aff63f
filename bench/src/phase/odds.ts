/**
 * Association statistics for 2×2 tables: the sample odds ratio with Woolf's 95% interval, the
 * Mantel–Haenszel common odds ratio over strata with the Robins–Breslow–Greenland interval, and
 * Fisher's exact two-sided p. Pure functions; unit-tested against R's and SciPy's results.
 */

/**
 * One 2×2 table. Rows: exposed (e.g. the gate would refuse the run) or not; columns: the
 * outcome (resolved) or not. `a` exposed & outcome, `b` exposed & no outcome, `c` unexposed &
 * outcome, `d` unexposed & no outcome.
 */
export interface Table2x2 {
  a: number;
  b: number;
  c: number;
  d: number;
}

export interface Estimate {
  /** Odds of the outcome when exposed over the odds when not (`ad / bc`). */
  estimate: number;
  low: number;
  high: number;
  /** A zero cell made the plain estimate add ½ to every cell (Haldane–Anscombe). */
  corrected?: true;
}

// The 97.5th percentile of the standard normal distribution.
const Z = 1.959963984540054;

/** The sample odds ratio with Woolf's (log) 95% interval; ½ is added to every cell when one is 0. */
export function oddsRatio(t: Table2x2): Estimate {
  const zero = t.a === 0 || t.b === 0 || t.c === 0 || t.d === 0;
  const [a, b, c, d] = zero ? [t.a + 0.5, t.b + 0.5, t.c + 0.5, t.d + 0.5] : [t.a, t.b, t.c, t.d];
  const log = Math.log((a * d) / (b * c));
  const se = Math.sqrt(1 / a + 1 / b + 1 / c + 1 / d);
  return {
    estimate: Math.exp(log),
    low: Math.exp(log - Z * se),
    high: Math.exp(log + Z * se),
    ...(zero ? { corrected: true as const } : {}),
  };
}

/**
 * The Mantel–Haenszel common odds ratio over strata, with the Robins–Breslow–Greenland 95%
 * interval (what R's `mantelhaen.test` reports). Strata with fewer than two runs carry no
 * information and are left out. Undefined when the estimate is 0/0.
 */
export function mantelHaenszel(strata: readonly Table2x2[]): Estimate | undefined {
  let r = 0;
  let s = 0;
  let pr = 0;
  let psqr = 0;
  let qs = 0;
  for (const { a, b, c, d } of strata) {
    const n = a + b + c + d;
    if (n < 2) continue;
    const ri = (a * d) / n;
    const si = (b * c) / n;
    const p = (a + d) / n;
    const q = (b + c) / n;
    r += ri;
    s += si;
    pr += p * ri;
    psqr += p * si + q * ri;
    qs += q * si;
  }
  if (r === 0 && s === 0) return undefined;
  const estimate = r / s;
  if (r === 0 || s === 0) return { estimate, low: Number.NaN, high: Number.NaN };
  const variance = pr / (2 * r * r) + psqr / (2 * r * s) + qs / (2 * s * s);
  const se = Math.sqrt(variance);
  const log = Math.log(estimate);
  return { estimate, low: Math.exp(log - Z * se), high: Math.exp(log + Z * se) };
}

/**
 * Fisher's exact test, two-sided: the probability, with the table's margins fixed, of a table
 * at most as likely as the one seen (with R's relative tolerance of 1e-7 for ties).
 */
export function fisherExact(t: Table2x2): number {
  const rows = t.a + t.b;
  const cols = t.a + t.c;
  const n = t.a + t.b + t.c + t.d;
  const logFactorial = logFactorials(n);
  const lchoose = (m: number, k: number) =>
    logFactorial[m]! - logFactorial[k]! - logFactorial[m - k]!;
  const logP = (x: number) => lchoose(rows, x) + lchoose(n - rows, cols - x) - lchoose(n, cols);
  const observed = logP(t.a);
  let p = 0;
  for (let x = Math.max(0, cols + rows - n); x <= Math.min(rows, cols); x++) {
    const lp = logP(x);
    if (lp <= observed + Math.log1p(1e-7)) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

function logFactorials(n: number): number[] {
  const out = [0];
  for (let i = 1; i <= n; i++) out.push(out[i - 1]! + Math.log(i));
  return out;
}
