import { measureInterleaved } from './interleaved.js';
import { median, type Summary, summarize } from './stats.js';
import { FASTEST_PLAIN, LOOPS, type LoopName } from './workload.js';

export interface TickOverheadOptions {
  ticks: number;
  /** Measured repetitions of every loop (interleaved). */
  reps: number;
  /** Unmeasured runs of every loop first (JIT, module loading, caches). */
  warmup: number;
  loops: readonly LoopName[];
  /** How many of the workload's tools every loop mounts (default all, `TOOL_COUNT`). */
  tools?: number;
  /**
   * Rounds per repetition: a round runs every loop once, back to back, and the rounds of all
   * repetitions are run round-robin (round 1 of every repetition, then round 2, ...). Targets
   * pair the loops within a round and take the median of a repetition's rounds
   * (`pairedPerRep`); `samples` keeps each repetition's fastest run of each loop. Default 1.
   */
  inner?: number;
  log?: (line: string) => void;
}

export interface TickOverheadResult {
  ticks: number;
  /** Tools mounted (undefined: all of the workload's). */
  tools?: number;
  reps: number;
  /** Runs of every loop per repetition (the sample is the fastest). */
  inner: number;
  /** CPU milliseconds per tick (see `cpuMs`), one sample per run. */
  perTick: Record<string, Summary>;
  /** Wall-clock milliseconds per tick, one sample per run. */
  wallPerTick: Record<string, Summary>;
  /** The CPU samples themselves, in repetition order (index i of every loop = the same rep). */
  samples: Record<string, number[]>;
  /**
   * Every run's CPU per tick, by loop, repetition and round: `rounds[loop][rep][round]`. The runs
   * of one round ran back to back, under the same machine conditions (see `pairedPerRep`).
   */
  rounds: Record<string, number[][]>;
  /** Agate / the fastest plain loop, per repetition (same rep = similar conditions). */
  ratios: Summary | undefined;
}

/**
 * `a` against `b` per repetition, paired by round: each round's `combine(a, b)` (the two runs of
 * a round ran back to back), and the repetition's figure is the median of its rounds. A shared
 * machine changes speed for seconds at a time, by as much as half; the fastest run of each side
 * over a repetition can then come from different phases (one lucky run moves the ratio by a
 * third), while two runs of one round see the same phase. The median of the rounds then sets
 * aside a round hit by a GC pause or a neighbour's burst. `b` may list several loops: the
 * fastest of them in that round (the faster plain loop).
 */
export function pairedPerRep(
  rounds: Record<string, number[][]>,
  a: string,
  b: string | readonly string[],
  combine: (x: number, y: number) => number,
): Summary | undefined {
  const xs = rounds[a];
  const others = (typeof b === 'string' ? [b] : b)
    .map((name) => rounds[name])
    .filter((r): r is number[][] => r !== undefined);
  if (xs === undefined || xs.length === 0 || others.length === 0) return undefined;
  const perRep = xs.map((reps, rep) =>
    median(reps.map((x, round) => combine(x, Math.min(...others.map((o) => o[rep]![round]!))))),
  );
  return summarize(perRep);
}

/** `a − b` (or `a / b`) per repetition: both ran in the same rep, under similar conditions. */
export function perRep(
  samples: Record<string, number[]>,
  a: string,
  b: string,
  combine: (x: number, y: number) => number,
): Summary | undefined {
  const xs = samples[a];
  const ys = samples[b];
  if (!xs || !ys || xs.length === 0 || xs.length !== ys.length) return undefined;
  return summarize(xs.map((x, i) => combine(x, ys[i]!)));
}

/**
 * Runs every loop `reps` times, interleaved and in a rotating order, so that drift in machine
 * load hits every loop alike (see `measureInterleaved`); reports per-tick CPU time (and wall).
 */
export async function measureTickOverhead(
  options: TickOverheadOptions,
): Promise<TickOverheadResult> {
  const { ticks, loops, tools } = options;
  const measured = await measureInterleaved(
    loops,
    async (name) => (await LOOPS[name].run(ticks, undefined, tools)).ticks,
    { ...options, unit: 'tick' },
  );
  return {
    ticks,
    ...(tools !== undefined ? { tools } : {}),
    reps: options.reps,
    inner: options.inner ?? 1,
    perTick: measured.perUnit,
    wallPerTick: measured.wallPerUnit,
    samples: measured.samples,
    rounds: measured.rounds,
    ratios: perRep(measured.samples, 'agate', FASTEST_PLAIN, (a, b) => a / b),
  };
}

/** `loop` / the fastest plain loop (`FASTEST_PLAIN`), per repetition, from recorded samples. */
export function ratioToPlain(
  samples: Record<string, number[]>,
  loop = 'agate',
): Summary | undefined {
  return perRep(samples, loop, FASTEST_PLAIN, (a, b) => a / b);
}
