import { cpuMs, roundOrder, type Summary, summarize } from './stats.js';

export interface InterleavedOptions {
  /** Measured repetitions of every side. */
  reps: number;
  /** Unmeasured runs of every side first (JIT, module loading, caches). */
  warmup: number;
  /**
   * Rounds per repetition: a round runs every side once, back to back, and the rounds of all
   * repetitions are run round-robin (round 1 of every repetition, then round 2, ...). Default 1.
   */
  inner?: number;
  log?: (line: string) => void;
  /** What a unit is in the log lines ("tick", "step"). */
  unit?: string;
}

export interface InterleavedResult {
  /** CPU milliseconds per unit, one sample per repetition: each side's fastest run in it. */
  perUnit: Record<string, Summary>;
  /** Wall-clock milliseconds per unit of those runs. */
  wallPerUnit: Record<string, Summary>;
  /** The CPU samples themselves, in repetition order (index i of every side = the same rep). */
  samples: Record<string, number[]>;
  /** Every run's CPU per unit, by side, repetition and round: `rounds[side][rep][round]`. */
  rounds: Record<string, number[][]>;
}

/**
 * Runs every side `reps × inner` times, interleaved and in a rotating order, so that drift in
 * machine load hits every side alike. `run(name)` does one run and returns its units (ticks,
 * steps); the figure of a run is the CPU time the process spent on it (see `cpuMs`) per unit.
 * Round-robin over the repetitions: round r of every repetition runs before round r + 1 of
 * any, so a burst of machine noise (seconds long) touches a round or two of many repetitions,
 * which their medians set aside, instead of every round of one repetition.
 */
export async function measureInterleaved<N extends string>(
  names: readonly N[],
  run: (name: N) => Promise<number>,
  options: InterleavedOptions,
): Promise<InterleavedResult> {
  const { reps } = options;
  const inner = options.inner ?? 1;
  const log = options.log ?? (() => {});
  for (let i = 0; i < options.warmup; i++) for (const name of names) await run(name);
  const rounds = new Map<N, number[][]>(
    names.map((name) => [name, Array.from({ length: reps }, () => [])]),
  );
  const best = Array.from({ length: reps }, () => new Map<N, { cpu: number; wall: number }>());
  for (let round = 0; round < inner; round++) {
    for (const rep of roundOrder(reps, round)) {
      // Every side takes every place in the order as often, so none always follows the same one.
      const order = names.map((_, i) => names[(i + rep + round) % names.length]!);
      for (const name of order) {
        const start = performance.now();
        const startCpu = cpuMs();
        const units = await run(name);
        const cpu = (cpuMs() - startCpu) / units;
        const wall = (performance.now() - start) / units;
        rounds.get(name)![rep]!.push(cpu);
        const prev = best[rep]!.get(name);
        if (prev === undefined || cpu < prev.cpu) best[rep]!.set(name, { cpu, wall });
      }
    }
    if (inner > 1) log(`  round ${round + 1}/${inner} of ${reps} repetitions done`);
  }
  const samples = new Map<N, number[]>(names.map((name) => [name, []]));
  const wall = new Map<N, number[]>(names.map((name) => [name, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const name of names) {
      const sample = best[rep]!.get(name)!;
      samples.get(name)!.push(sample.cpu);
      wall.get(name)!.push(sample.wall);
    }
    log(
      `  rep ${rep + 1}/${reps}: ${names.map((n) => `${n} ${best[rep]!.get(n)!.cpu.toFixed(3)}`).join(', ')} ms CPU/${options.unit ?? 'unit'} (fastest run)`,
    );
  }
  const summaries = (m: Map<N, number[]>) =>
    Object.fromEntries([...m].map(([name, values]) => [name, summarize(values)]));
  return {
    perUnit: summaries(samples),
    wallPerUnit: summaries(wall),
    samples: Object.fromEntries(samples),
    rounds: Object.fromEntries(rounds),
  };
}
