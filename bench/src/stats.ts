/** Small statistics helpers; all inputs are non-empty arrays of milliseconds or bytes. */

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Linear-interpolated quantile (q in [0, 1]). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('quantile of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  p95: number;
  samples: number;
}

export function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    p95: quantile(values, 0.95),
    samples: values.length,
  };
}

export function ms(value: number): string {
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  return `${value.toFixed(3)} ms`;
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Runs the garbage collector when the process was started with --expose-gc. Memory figures use
 * it; timings do not: a forced full collection between runs kills the previous run's session,
 * and V8 then deoptimizes the code it had specialized on those objects ("embedded weak objects
 * cleared"), so every next run would be timed while re-optimizing, a state no long-lived process
 * is in after each run. Timed loops alternate in a steady heap instead.
 */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

/**
 * Heap after GC per item of `count` items made one after another by `make` and held together,
 * over the heap before them (after one untimed item, so module state and caches are made).
 * Needs --expose-gc (see `collectGarbage`).
 */
export async function heapPer<T>(
  count: number,
  make: () => Promise<T>,
): Promise<{ bytes: number; items: T[] }> {
  await make();
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const items: T[] = [];
  for (let i = 0; i < count; i++) items.push(await make());
  collectGarbage();
  return { bytes: (process.memoryUsage().heapUsed - before) / count, items };
}

/**
 * The order the repetitions take in round `round` of a round-robin: a shuffle, seeded by the
 * round (the same on every run). Every round allocates alike, so a full collection can recur
 * every so many runs; in any fixed order (or one rotated a step per round) that period can
 * match the order's and land in every round of the same repetition, whose fastest run then
 * still carries it. Seen: two long-history repetitions read 0.91 ms as their fastest of 11
 * windows where the others read 0.72-0.76. A shuffled order has no period to match.
 */
export function roundOrder(reps: number, round: number): number[] {
  const order = Array.from({ length: reps }, (_, i) => i);
  // mulberry32: small, well mixed, and deterministic.
  let seed = (0x9e3779b9 * (round + 1)) >>> 0;
  const random = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = reps - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * This process's CPU time (user + system, all threads) in milliseconds. The benchmarks time
 * with it rather than the wall clock: on a shared machine the wall clock also counts the time
 * other processes held the CPU, while the work timed here (an instant mock model, no I/O) is
 * all CPU work of this process.
 */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
