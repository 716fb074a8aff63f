import { collectGarbage, cpuMs, type Summary, summarize } from './stats.js';
import { LOOPS, type LoopName } from './workload.js';

export interface TickOverheadOptions {
  ticks: number;
  /** Measured repetitions of every loop (interleaved). */
  reps: number;
  /** Unmeasured runs of every loop first (JIT, module loading, caches). */
  warmup: number;
  loops: readonly LoopName[];
  log?: (line: string) => void;
}

export interface TickOverheadResult {
  ticks: number;
  reps: number;
  /** CPU milliseconds per tick (see `cpuMs`), one sample per run. */
  perTick: Record<string, Summary>;
  /** Wall-clock milliseconds per tick, one sample per run. */
  wallPerTick: Record<string, Summary>;
  /** The CPU samples themselves, in repetition order (index i of every loop = the same rep). */
  samples: Record<string, number[]>;
  /** Agate / generateText, per repetition (same rep = similar machine conditions). */
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
    for (const name of order) {
      collectGarbage();
      const start = performance.now();
      const startCpu = cpuMs();
      const outcome = await LOOPS[name].run(ticks);
      const perTick = (cpuMs() - startCpu) / outcome.ticks;
      wall.get(name)!.push((performance.now() - start) / outcome.ticks);
      samples.get(name)!.push(perTick);
      thisRep.set(name, perTick);
    }
    const agate = thisRep.get('agate');
    const raw = thisRep.get('generateText');
    if (agate !== undefined && raw !== undefined) ratios.push(agate / raw);
    log(
      `  rep ${rep + 1}/${options.reps}: ${order.map((n) => `${n} ${thisRep.get(n)!.toFixed(2)}`).join(', ')} ms CPU/tick`,
    );
  }
  return {
    ticks,
    reps: options.reps,
    perTick: Object.fromEntries([...samples].map(([name, values]) => [name, summarize(values)])),
    wallPerTick: Object.fromEntries([...wall].map(([name, values]) => [name, summarize(values)])),
    samples: Object.fromEntries(samples),
    ratios: ratios.length > 0 ? summarize(ratios) : undefined,
  };
}
