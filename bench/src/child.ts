/**
 * Entry point of the benchmark's child processes (started by main.ts): one measurement per
 * process, so that memory peaks don't mix and NODE_ENV picks the React build at import time.
 * Prints progress on stderr and one `RESULT <json>` line on stdout.
 */
import { childMain } from './child-process.js';
import { type LongHistoryOptions, measureLongHistory } from './long-history.js';
import { measureMemory } from './memory.js';
import { loadedReactBuild } from './react-build.js';
import { measureRenderCost, type RenderCostOptions } from './render-cost.js';
import { measureIdleSessions, measureScale } from './scale.js';
import { measureTickOverhead, type TickOverheadOptions } from './tick-overhead.js';
import { isLoopName } from './workload.js';

export type ChildTask =
  | { kind: 'memory'; loop: string; ticks: number }
  | {
      kind: 'build';
      render: RenderCostOptions;
      tick: Omit<TickOverheadOptions, 'log'>;
    }
  | { kind: 'tick'; tick: Omit<TickOverheadOptions, 'log'> }
  | { kind: 'long'; long: Omit<LongHistoryOptions, 'log'> }
  | { kind: 'scale'; reps: number; singleRuns: number }
  | { kind: 'idle-sessions'; sessions: number };

const log = (line: string) => process.stderr.write(`${line}\n`);

childMain(async (task: ChildTask): Promise<unknown> => {
  if (task.kind === 'memory') {
    if (!isLoopName(task.loop)) throw new Error(`unknown loop ${task.loop}`);
    const result = await measureMemory(task.loop, task.ticks);
    return { ...result, nodeEnv: process.env.NODE_ENV, react: loadedReactBuild() };
  }
  if (task.kind === 'tick') return measureTickOverhead({ ...task.tick, log });
  if (task.kind === 'long') return measureLongHistory({ ...task.long, log });
  if (task.kind === 'scale') return measureScale(task, log);
  if (task.kind === 'idle-sessions') return measureIdleSessions(task.sessions);
  if (task.kind === 'build') {
    const render = await measureRenderCost(task.render);
    const tick = await measureTickOverhead({ ...task.tick, log });
    return { render, tick, nodeEnv: process.env.NODE_ENV, react: loadedReactBuild() };
  }
  throw new Error(`unknown task ${JSON.stringify(task)}`);
});
