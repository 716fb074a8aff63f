import { type ReplayStep, replayPhaseGates } from '@agate/core/guards';
import type { Trajectory } from './replay-bench.js';

/** One check in a recorded run: the call the phase gates classify as a verification. */
export interface SampledCheck {
  id: string;
  step: number;
  command: string;
  result?: NonNullable<ReplayStep['result']>;
  /** The classifier says the call's exit code is not the check's (`pytest | tail`, `;`, `||`). */
  exitCodeHidden: boolean;
}

/** Every check in the runs, in run and step order. */
export function checksOf(runs: readonly Trajectory[]): SampledCheck[] {
  const out: SampledCheck[] = [];
  for (const run of runs) {
    const replay = replayPhaseGates(run.steps, { tools: { bash: 'shell' } });
    replay.parts.forEach((parts, step) => {
      const verify = parts.filter((p) => p.category === 'verify');
      if (verify.length === 0) return;
      const s = run.steps[step]!;
      const input = s.input as { command?: unknown } | undefined;
      out.push({
        id: run.id,
        step,
        command: typeof input?.command === 'string' ? input.command : '',
        ...(s.result !== undefined ? { result: s.result } : {}),
        exitCodeHidden: verify.some((p) => p.exitCodeHidden === true),
      });
    });
  }
  return out;
}

/** mulberry32: a small seeded generator, so the draw is the same on every machine. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The first `n` items of a seeded Fisher–Yates shuffle. */
export function draw<T>(items: readonly T[], n: number, seed: number): T[] {
  const random = seeded(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

export const SAMPLE_SEED = 47;
export const DEV = 100;
export const HELD_OUT = 50;

/**
 * The third draw (`split: "fresh"`): labelled after the reader had been tuned on dev and the
 * held-out set had been looked at, so it is the only set nobody had seen when it was labelled.
 */
export const FRESH_SEED = 4747;
export const FRESH = 150;

/**
 * The fourth draw (`split: "fresh-2"`): drawn from the checks minus all 300 labelled before it,
 * and labelled before the reader (changed again after `fresh` had been read) was run on any.
 */
export const FRESH2_SEED = 5151;
export const FRESH2 = 150;

/** The drawn splits after dev and held-out, in the order they were drawn. */
export const DRAWS = {
  fresh: { seed: FRESH_SEED, n: FRESH, after: ['dev', 'held-out'], labelledBefore: DEV + HELD_OUT },
  'fresh-2': {
    seed: FRESH2_SEED,
    n: FRESH2,
    after: ['dev', 'held-out', 'fresh'],
    labelledBefore: DEV + HELD_OUT + FRESH,
  },
} as const satisfies Record<
  string,
  { seed: number; n: number; after: readonly string[]; labelledBefore: number }
>;
export type DrawName = keyof typeof DRAWS;

/** `n` checks drawn with `seed` from those not already in `labelled` (same id and step). */
export function drawFresh(
  checks: readonly SampledCheck[],
  labelled: ReadonlyArray<Pick<SampledCheck, 'id' | 'step'>>,
  n: number = FRESH,
  seed: number = FRESH_SEED,
): SampledCheck[] {
  const seen = new Set(labelled.map((c) => `${c.id}#${c.step}`));
  return draw(
    checks.filter((c) => !seen.has(`${c.id}#${c.step}`)),
    n,
    seed,
  );
}
