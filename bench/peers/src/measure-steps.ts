import { measureInterleaved } from '../../src/interleaved.js';
import type { Summary } from '../../src/stats.js';
import { perRep } from '../../src/tick-overhead.js';
import { checkedRun } from './check.js';
import { SIDE_IDS, type SideId } from './side.js';
import { SIDES } from './sides/index.js';

export interface StepsOptions {
  /** Tool calls per run (each run makes one more model call, for the final text). */
  steps: number;
  reps: number;
  inner: number;
  warmup: number;
}

export interface StepsResult extends StepsOptions {
  /** CPU ms per step (the run's CPU time / its tool calls), each repetition's fastest run. */
  perStep: Record<SideId, Summary>;
  /** Wall ms per step of those runs. */
  wallPerStep: Record<SideId, Summary>;
  /** Each side / the fastest plain loop, per repetition. */
  vsPlain: Record<SideId, Summary>;
}

/**
 * CPU per step of every side on runs of `steps` tool calls, all in this process, interleaved
 * as the main bench's targets are (see `measureInterleaved`); every run is checked to have
 * made exactly `steps` tool calls and `steps + 1` model calls.
 */
export async function measureSteps(
  options: StepsOptions,
  log: (line: string) => void,
): Promise<StepsResult> {
  const { steps } = options;
  const measured = await measureInterleaved(
    SIDE_IDS,
    async (id) => {
      await checkedRun(SIDES[id], steps);
      return steps;
    },
    { ...options, log, unit: 'step' },
  );
  const vsPlain = Object.fromEntries(
    SIDE_IDS.map((id) => [id, perRep(measured.samples, id, 'plain', (a, b) => a / b)!]),
  ) as Record<SideId, Summary>;
  return {
    ...options,
    perStep: measured.perUnit as Record<SideId, Summary>,
    wallPerStep: measured.wallPerUnit as Record<SideId, Summary>,
    vsPlain,
  };
}
