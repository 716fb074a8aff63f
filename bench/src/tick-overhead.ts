import { cpuMs, type Summary, summarize } from './stats.js';
import { LOOPS, type LoopName } from './workload.js';

export interface TickOverheadOptions {
  ticks: number;
  /** Measured repetitions of every loop (interleaved). */
  reps: number;
  /** Unmeasured runs of every loop first (JIT, module loading, caches). */
  warmup: number;
  loops: readonly LoopName[];
  /**
   * Runs of every loop per repetition (alternating); the repetition's sample is the fastest of
   * them. Noise on a shared machine only ever adds time, so the minimum of a few runs is a
   * steadier per-repetition figure than one run, and the spread across repetitions shrinks to
   * what really differs between them. Default 1.
   */
  inner?: number;
  log?: (line: string) => void;
}

export interface TickOverheadResult {
  ticks: number;
  reps: number;
  /** Runs of every loop per repetition (the sample is the fastest). */
  inner: number;
  /** CPU milliseconds per tick (see `cpuMs`), one sample per run. */
  perTick: Record<string, Summary>;
  /** Wall-clock milliseconds per tick, one sample per run. */
  wallPerTick: Record<string, Summary>;
  /** The CPU samples themselves, in repetition order (index i of every loop = the same rep). */
  samples: Record<string, number[]>;
  /** Agate / the faster plain `generateText` loop, per repetition (same rep = similar conditions). */
  ratios: Summary | undefined;
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
 * load hits every loop alike; reports per-tick medians of CPU time (and of wall time).
 */
export async function measureTickOverhead(
  options: TickOverheadOptions,
): Promise<TickOverheadResult> {
  const { ticks, loops } = options;
  const log = options.log ?? (() => {});
  for (let i = 0; i < options.warmup; i++) {
    for (const name of loops) await LOOPS[name].run(ticks);
  }
  const samples = new Map<LoopName, number[]>(loops.map((name) => [name, []]));
  const wall = new Map<LoopName, number[]>(loops.map((name) => [name, []]));
  const ratios: number[] = [];
  for (let rep = 0; rep < options.reps; rep++) {
    const order = loops.map((_, i) => loops[(i + rep) % loops.length]!);
    const thisRep = new Map<LoopName, number>();
    const best = new Map<LoopName, { cpu: number; wall: number }>();
    for (let round = 0; round < (options.inner ?? 1); round++) {
      for (const name of order) {
        const start = performance.now();
        const startCpu = cpuMs();
        const outcome = await LOOPS[name].run(ticks);
        const cpu = (cpuMs() - startCpu) / outcome.ticks;
        const wallTime = (performance.now() - start) / outcome.ticks;
        const prev = best.get(name);
        if (prev === undefined || cpu < prev.cpu) best.set(name, { cpu, wall: wallTime });
      }
    }
    for (const name of order) {
      const { cpu, wall: wallTime } = best.get(name)!;
      wall.get(name)!.push(wallTime);
      samples.get(name)!.push(cpu);
      thisRep.set(name, cpu);
    }
    const agate = thisRep.get('agate');
    const raw = fasterPlain(thisRep);
    if (agate !== undefined && raw !== undefined) ratios.push(agate / raw);
    log(
      `  rep ${rep + 1}/${options.reps}: ${order.map((n) => `${n} ${thisRep.get(n)!.toFixed(2)}`).join(', ')} ms CPU/tick`,
    );
  }
  return {
    ticks,
    reps: options.reps,
    inner: options.inner ?? 1,
    perTick: Object.fromEntries([...samples].map(([name, values]) => [name, summarize(values)])),
    wallPerTick: Object.fromEntries([...wall].map(([name, values]) => [name, summarize(values)])),
    samples: Object.fromEntries(samples),
    ratios: ratios.length > 0 ? summarize(ratios) : undefined,
  };
}

/**
 * The faster of the plain `generateText` loops in one repetition: as the AI SDK docs write it,
 * or with its schemas converted once. Targets are judged against the better plain loop.
 */
export function fasterPlain(rep: ReadonlyMap<string, number>): number | undefined {
  const values = ['generateText', 'generateTextPreconverted']
    .map((name) => rep.get(name))
    .filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : Math.min(...values);
}

/** Agate / the faster plain loop, per repetition, from recorded samples. */
export function ratioToFasterPlain(
  samples: Record<string, number[]>,
  loop = 'agate',
): Summary | undefined {
  const xs = samples[loop];
  if (!xs || xs.length === 0) return undefined;
  const ratios: number[] = [];
  for (let i = 0; i < xs.length; i++) {
    const rep = new Map<string, number>();
    for (const name of ['generateText', 'generateTextPreconverted']) {
      const v = samples[name]?.[i];
      if (v !== undefined) rep.set(name, v);
    }
    const raw = fasterPlain(rep);
    if (raw !== undefined) ratios.push(xs[i]! / raw);
  }
  return ratios.length === 0 ? undefined : summarize(ratios);
}
