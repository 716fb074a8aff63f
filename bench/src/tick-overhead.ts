import { collectGarbage, type Summary, summarize } from './stats.js';
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
  /** Milliseconds per tick, one sample per run. */
  perTick: Record<string, Summary>;
  /** Agate / generateText, per repetition (same rep = similar machine conditions). */
  ratios: Summary | undefined;
  /** CPU milliseconds (user + system, this process) per tick, one sample per run. */
  cpuPerTick: Record<string, Summary>;
  /**
   * Each loop's CPU time / the untraced Agate loop's (`agateNoTelemetry`), per repetition, when it
   * ran. CPU time, not wall time: on a shared machine it does not count the time another process
   * held the core, so differences of a few percent stay visible.
   */
  vsUntraced?: Record<string, Summary>;
}

/**
 * Runs every loop `reps` times, interleaved and in a rotating order, so that drift in machine
 * load hits every loop alike; reports per-tick medians.
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
  const cpuSamples = new Map<LoopName, number[]>(loops.map((name) => [name, []]));
  const ratios: number[] = [];
  const vsUntraced = new Map<LoopName, number[]>();
  for (let rep = 0; rep < options.reps; rep++) {
    const order = loops.map((_, i) => loops[(i + rep) % loops.length]!);
    const thisRep = new Map<LoopName, number>();
    const cpuThisRep = new Map<LoopName, number>();
    for (const name of order) {
      collectGarbage();
      const cpu = process.cpuUsage();
      const start = performance.now();
      const outcome = await LOOPS[name].run(ticks);
      const perTick = (performance.now() - start) / outcome.ticks;
      const used = process.cpuUsage(cpu);
      samples.get(name)!.push(perTick);
      thisRep.set(name, perTick);
      const cpuPerTick = (used.user + used.system) / 1000 / outcome.ticks;
      cpuSamples.get(name)!.push(cpuPerTick);
      cpuThisRep.set(name, cpuPerTick);
    }
    const agate = thisRep.get('agate');
    const raw = thisRep.get('generateText');
    if (agate !== undefined && raw !== undefined) ratios.push(agate / raw);
    const untraced = cpuThisRep.get('agateNoTelemetry');
    for (const [name, perTick] of untraced === undefined ? [] : cpuThisRep) {
      vsUntraced.set(name, [...(vsUntraced.get(name) ?? []), perTick / untraced!]);
    }
    log(
      `  rep ${rep + 1}/${options.reps}: ${order.map((n) => `${n} ${thisRep.get(n)!.toFixed(2)}`).join(', ')} ms/tick`,
    );
  }
  return {
    ticks,
    reps: options.reps,
    perTick: Object.fromEntries([...samples].map(([name, values]) => [name, summarize(values)])),
    ratios: ratios.length > 0 ? summarize(ratios) : undefined,
    cpuPerTick: Object.fromEntries(
      [...cpuSamples].map(([name, values]) => [name, summarize(values)]),
    ),
    ...(vsUntraced.size > 0
      ? {
          vsUntraced: Object.fromEntries(
            [...vsUntraced].map(([name, values]) => [name, summarize(values)]),
          ),
        }
      : {}),
  };
}
