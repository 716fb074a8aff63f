import { cpuMs, type Summary, summarize } from '../../src/stats.js';
import { checkRun, checkToolCalls } from './check.js';
import { toolCallCount } from './script.js';
import { SIDE_IDS, type SideId } from './side.js';
import { SIDES } from './sides/index.js';

export interface ConcurrentOptions {
  runs: number;
  /** Tool calls per run. */
  steps: number;
  /** The fake model answers after this long (a timer), so the runs interleave on the event loop. */
  latencyMs: number;
  reps: number;
}

export interface ConcurrentResult extends ConcurrentOptions {
  /** Steps (tool calls) per second of wall time, `runs` runs started together. */
  stepsPerSecond: Record<SideId, Summary>;
  /** CPU ms per step over the batch. */
  cpuPerStep: Record<SideId, Summary>;
  /** Each side's steps per second / the fastest plain loop's, per repetition. */
  vsPlain: Record<SideId, Summary>;
}

/** One batch: `runs` runs of one side started together, every run and the total checked. */
async function batch(
  id: SideId,
  options: ConcurrentOptions,
): Promise<{ wallMs: number; cpu: number }> {
  const side = SIDES[id];
  const { runs, steps, latencyMs } = options;
  const calls = toolCallCount();
  const cpu = cpuMs();
  const start = performance.now();
  const results = await Promise.all(
    Array.from({ length: runs }, () => side.run(steps, { latencyMs })),
  );
  const wallMs = performance.now() - start;
  const cpuUsed = cpuMs() - cpu;
  for (const run of results) checkRun(side, steps, run);
  checkToolCalls(side, runs * steps, toolCallCount() - calls);
  return { wallMs, cpu: cpuUsed / (runs * steps) };
}

/**
 * `runs` runs at once per side, the sides one after another in a rotating order, `reps` times,
 * after a warm-up batch of a tenth of the runs each.
 */
export async function measureConcurrent(
  options: ConcurrentOptions,
  log: (line: string) => void,
): Promise<ConcurrentResult> {
  const warm = { ...options, runs: Math.max(1, Math.round(options.runs / 10)) };
  for (const id of SIDE_IDS) await batch(id, warm);
  const perSecond = new Map<SideId, number[]>(SIDE_IDS.map((id) => [id, []]));
  const cpu = new Map<SideId, number[]>(SIDE_IDS.map((id) => [id, []]));
  for (let rep = 0; rep < options.reps; rep++) {
    const order = SIDE_IDS.map((_, i) => SIDE_IDS[(i + rep) % SIDE_IDS.length]!);
    for (const id of order) {
      const { wallMs, cpu: c } = await batch(id, options);
      perSecond.get(id)!.push((options.runs * options.steps) / (wallMs / 1000));
      cpu.get(id)!.push(c);
      log(`  rep ${rep + 1}/${options.reps}: ${id} ${Math.round(wallMs)} ms wall`);
    }
  }
  const plain = perSecond.get('plain')!;
  const summaries = (m: Map<SideId, number[]>) =>
    Object.fromEntries([...m].map(([id, values]) => [id, summarize(values)])) as Record<
      SideId,
      Summary
    >;
  return {
    ...options,
    stepsPerSecond: summaries(perSecond),
    cpuPerStep: summaries(cpu),
    vsPlain: Object.fromEntries(
      SIDE_IDS.map((id) => [id, summarize(perSecond.get(id)!.map((v, i) => v / plain[i]!))]),
    ) as Record<SideId, Summary>,
  };
}
