import type { Summary } from './stats.js';

/**
 * A target judged on its spread, not on one median: `met` only when every repetition met it,
 * `missed` only when none did, and `not resolved` when the spread (min–max of the per-repetition
 * values) crosses the target, because then another run on another machine may well say the
 * opposite. The values are ratios or differences where lower is better.
 */
export type Verdict = 'met' | 'missed' | 'not resolved' | 'not measured';

export function judge(spread: Summary | undefined, target: number): Verdict {
  if (spread === undefined) return 'not measured';
  if (spread.max <= target) return 'met';
  if (spread.min > target) return 'missed';
  return 'not resolved';
}

/** For targets where higher is better (a speed-up that must reach a floor). */
export function judgeAtLeast(spread: Summary | undefined, floor: number): Verdict {
  if (spread === undefined) return 'not measured';
  if (spread.min >= floor) return 'met';
  if (spread.max < floor) return 'missed';
  return 'not resolved';
}

export function formatVerdict(verdict: Verdict): string {
  return verdict === 'not measured' ? verdict : `**${verdict}**`;
}
