import { collectGarbage } from './stats.js';
import { LOOPS, type LoopName, type LoopOutcome } from './workload.js';

export interface MemoryResult {
  loop: LoopName;
  ticks: number;
  elapsedMs: number;
  /** After imports and a 20-tick warm-up run, after GC. */
  baselineRss: number;
  baselineHeapUsed: number;
  /** Highest RSS sampled after every tick (and every 5 ms the event loop allowed). */
  peakRss: number;
  /** After GC, while the run's result (RunResult / GenerateTextResult / steps) is still held. */
  heapUsedHoldingResult: number;
  /** After GC, once the result is dropped: what the run leaves behind. */
  heapUsedAfterRelease: number;
  gcExposed: boolean;
}

/** One loop, once, in this process: run it in its own child so peaks don't mix. */
export async function measureMemory(loop: LoopName, ticks: number): Promise<MemoryResult> {
  await LOOPS[loop].run(20);
  collectGarbage();
  const baseline = process.memoryUsage();
  const held = await runHoldingResult(loop, ticks, baseline.rss);
  // The result is unreachable now: runHoldingResult's frame (which held it) has returned.
  collectGarbage();
  const heapUsedAfterRelease = process.memoryUsage().heapUsed;
  return {
    loop,
    ticks,
    ...held,
    baselineRss: baseline.rss,
    baselineHeapUsed: baseline.heapUsed,
    heapUsedAfterRelease,
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
}

async function runHoldingResult(
  loop: LoopName,
  ticks: number,
  baselineRss: number,
): Promise<{ elapsedMs: number; peakRss: number; heapUsedHoldingResult: number }> {
  let peakRss = baselineRss;
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peakRss) peakRss = rss;
  };
  // The mock model never leaves the microtask queue for long, so most samples come from the
  // per-tick callback; the timer catches anything in between.
  const timer = setInterval(sample, 5);
  const started = performance.now();
  const outcome: LoopOutcome = await LOOPS[loop].run(ticks, sample);
  const elapsedMs = performance.now() - started;
  clearInterval(timer);
  sample();
  if (outcome.ticks !== ticks) throw new Error(`${loop} ran ${outcome.ticks} ticks, not ${ticks}`);
  collectGarbage();
  const heapUsedHoldingResult = process.memoryUsage().heapUsed;
  // Keeps the result reachable until after the measurement above.
  if (outcome.result === undefined) throw new Error(`${loop} returned no result`);
  return { elapsedMs, peakRss, heapUsedHoldingResult };
}
