/** How many of the most recent steps the slope looks at. */
export const SLOPE_WINDOW = 10;

/**
 * Fractional growth of per-step token spend, per step: the least-squares slope of the last
 * {@link SLOPE_WINDOW} per-step counts (x = 0..n-1) divided by their mean. 0.02 means each step
 * costs about 2% more than the one before.
 *
 * The reference design regresses *cumulative* tokens and compares the raw slope with 0.02, but
 * cumulative spend grows by a whole step's tokens every step, so any real run would throttle.
 * Dividing the per-step slope by the mean makes the threshold scale-free.
 *
 * Non-finite entries (a step whose usage was not reported) are skipped. Returns 0 with fewer than
 * three points (two points make a line, not a trend) or when the mean is not positive.
 */
export function budgetSlope(stepTokens: readonly number[] | undefined): number {
  if (stepTokens === undefined) return 0;
  const window: number[] = [];
  // Walk backwards so only the window is visited, however long the history is.
  for (let i = stepTokens.length - 1; i >= 0 && window.length < SLOPE_WINDOW; i--) {
    const value = stepTokens[i];
    if (value !== undefined && Number.isFinite(value)) window.push(value);
  }
  window.reverse();
  const n = window.length;
  if (n < 3) return 0;

  let sum = 0;
  for (const y of window) sum += y;
  const mean = sum / n;
  if (!(mean > 0)) return 0;

  const xMean = (n - 1) / 2;
  let covariance = 0;
  let variance = 0;
  for (let x = 0; x < n; x++) {
    const dx = x - xMean;
    covariance += dx * ((window[x] as number) - mean);
    variance += dx * dx;
  }
  const slope = covariance / variance / mean;
  // Huge finite inputs can overflow to Infinity - Infinity; no trend can be read from that.
  return Number.isFinite(slope) ? slope : 0;
}
