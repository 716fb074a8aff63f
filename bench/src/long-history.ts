import { cpuMs, type Summary, summarize } from './stats.js';
import { fasterPlain } from './tick-overhead.js';
import { LOOPS, type LoopName } from './workload.js';

export interface LongHistoryOptions {
  /** Ticks per run (each tick adds an assistant message and a tool message). */
  ticks: number;
  /** The last this-many ticks are timed. */
  window: number;
  /** Measured repetitions of every loop (interleaved, rotating order). */
  reps: number;
  warmup: number;
  /**
   * Runs of every loop per repetition (alternating); the repetition's sample is the run with the
   * fastest window (as in the tick rows: noise only adds time). Default 1.
   */
  inner?: number;
  loops: readonly LoopName[];
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
  /** Agate / the faster plain `generateText` loop over the window, per repetition. */
  ratios: Summary | undefined;
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
  const ratios: number[] = [];
  for (let rep = 0; rep < options.reps; rep++) {
    const order = loops.map((_, i) => loops[(i + rep) % loops.length]!);
    const thisRep = new Map<LoopName, number>();
    const best = new Map<LoopName, { window: number; whole: number }>();
    for (let round = 0; round < (options.inner ?? 1); round++) {
      for (const name of order) {
        const sample = await once(name);
        const prev = best.get(name);
        if (prev === undefined || sample.window < prev.window) best.set(name, sample);
      }
    }
    for (const name of order) {
      const sample = best.get(name)!;
      windowSamples.get(name)!.push(sample.window);
      wholeSamples.get(name)!.push(sample.whole);
      thisRep.set(name, sample.window);
    }
    const agate = thisRep.get('agate');
    const raw = fasterPlain(thisRep);
    if (agate !== undefined && raw !== undefined) ratios.push(agate / raw);
    log(
      `  rep ${rep + 1}/${options.reps}: ${order.map((n) => `${n} ${thisRep.get(n)!.toFixed(2)}`).join(', ')} ms CPU/tick (last ${window} of ${ticks})`,
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
  };
}
