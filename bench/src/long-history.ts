import { cpuMs, median, roundOrder, type Summary, summarize } from './stats.js';
import { FASTEST_PLAIN, LOOPS, type LoopName } from './workload.js';

export interface LongHistoryOptions {
  /** Ticks per run (each tick adds an assistant message and a tool message). */
  ticks: number;
  /** The last this-many ticks are timed. */
  window: number;
  /** Measured repetitions of every loop (interleaved, rotating order). */
  reps: number;
  warmup: number;
  /**
   * Rounds per repetition, run round-robin over the repetitions (see tick-overhead.ts): a round
   * runs every loop once, back to back; the ratio is the median of a repetition's rounds, and
   * the per-loop samples each repetition's fastest window. Default 1.
   */
  inner?: number;
  loops: readonly LoopName[];
  /**
   * Loops of `loops` run in the first round only: a loop far slower than the one it is judged
   * against (the docs' `generateText`, two to three times the fastest plain loop here) is reported with
   * fewer runs, so the rounds of the two loops the target compares can be many more.
   */
  firstRoundOnly?: readonly LoopName[];
  log?: (line: string) => void;
}

export interface LongHistoryResult {
  ticks: number;
  window: number;
  reps: number;
  /** Runs of every loop per repetition (the sample is the fastest window). */
  inner: number;
  /** CPU milliseconds per tick (see `cpuMs`) over the last `window` ticks, one sample per repetition. */
  perTick: Record<string, Summary>;
  /** The window samples themselves, in repetition order. */
  samples: Record<string, number[]>;
  /** CPU milliseconds per tick over the whole run, one sample per run. */
  wholeRun: Record<string, Summary>;
  /** Agate / the fastest plain loop over the window, per repetition (fastest windows). */
  ratios: Summary | undefined;
  /** The same, as the median of each repetition's rounds' ratios (see `pairedPerRep`). */
  pairedRatios: Summary | undefined;
}

/**
 * Per-tick cost at a long history: every loop runs `ticks` ticks and the time of its last
 * `window` ticks is taken from per-tick CPU-time stamps (Agate's `tick:end` event, the AI SDK's
 * `onStepEnd`), so both sides are timed at the same history length.
 */
export async function measureLongHistory(options: LongHistoryOptions): Promise<LongHistoryResult> {
  const { ticks, window, loops } = options;
  const log = options.log ?? (() => {});
  const once = async (name: LoopName) => {
    const stamps: number[] = [];
    const start = cpuMs();
    const outcome = await LOOPS[name].run(ticks, () => stamps.push(cpuMs()));
    const end = cpuMs();
    if (outcome.ticks !== ticks || stamps.length !== ticks) {
      throw new Error(`${name} ran ${outcome.ticks} ticks (${stamps.length} stamps), not ${ticks}`);
    }
    const last = stamps[ticks - 1]!;
    const from = stamps[ticks - 1 - window]!;
    return { window: (last - from) / window, whole: (end - start) / ticks };
  };
  for (let i = 0; i < options.warmup; i++) for (const name of loops) await once(name);
  const windowSamples = new Map<LoopName, number[]>(loops.map((name) => [name, []]));
  const wholeSamples = new Map<LoopName, number[]>(loops.map((name) => [name, []]));
  const { reps } = options;
  const inner = options.inner ?? 1;
  const best = Array.from(
    { length: reps },
    () => new Map<LoopName, { window: number; whole: number }>(),
  );
  const roundRatios = Array.from({ length: reps }, () => [] as number[]);
  // Round-robin over the repetitions, as in tick-overhead.ts: a burst of machine noise touches a
  // round of several repetitions, which their medians set aside, not a whole repetition.
  for (let round = 0; round < inner; round++) {
    for (const rep of roundOrder(reps, round)) {
      const order = loops.map((_, i) => loops[(i + rep + round) % loops.length]!);
      const thisRound = new Map<LoopName, number>();
      for (const name of order) {
        if (round > 0 && options.firstRoundOnly?.includes(name)) continue;
        const sample = await once(name);
        thisRound.set(name, sample.window);
        const prev = best[rep]!.get(name);
        if (prev === undefined || sample.window < prev.window) best[rep]!.set(name, sample);
      }
      const agate = thisRound.get('agate');
      const raw = thisRound.get(FASTEST_PLAIN);
      if (agate !== undefined && raw !== undefined) roundRatios[rep]!.push(agate / raw);
    }
    log(`  round ${round + 1}/${inner} of ${reps} repetitions done`);
  }
  const ratios: number[] = [];
  const paired: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const thisRep = new Map<LoopName, number>();
    for (const name of loops) {
      const sample = best[rep]!.get(name)!;
      windowSamples.get(name)!.push(sample.window);
      wholeSamples.get(name)!.push(sample.whole);
      thisRep.set(name, sample.window);
    }
    const agate = thisRep.get('agate');
    const raw = thisRep.get(FASTEST_PLAIN);
    if (agate !== undefined && raw !== undefined) ratios.push(agate / raw);
    if (roundRatios[rep]!.length > 0) paired.push(median(roundRatios[rep]!));
    log(
      `  rep ${rep + 1}/${reps}: ${loops.map((n) => `${n} ${thisRep.get(n)!.toFixed(2)}`).join(', ')} ms CPU/tick (fastest window, last ${window} of ${ticks}); median of paired rounds ${paired.at(-1)?.toFixed(2)}`,
    );
  }
  const summaries = (m: Map<LoopName, number[]>) =>
    Object.fromEntries([...m].map(([name, values]) => [name, summarize(values)]));
  return {
    ticks,
    window,
    reps: options.reps,
    inner: options.inner ?? 1,
    perTick: summaries(windowSamples),
    samples: Object.fromEntries(windowSamples),
    wholeRun: summaries(wholeSamples),
    ratios: ratios.length > 0 ? summarize(ratios) : undefined,
    pairedRatios: paired.length > 0 ? summarize(paired) : undefined,
  };
}
