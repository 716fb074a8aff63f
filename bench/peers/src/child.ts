/**
 * Entry point of the peers bench's child processes (started by main.ts): one measurement per
 * process. Prints progress on stderr and one `RESULT <json>` line on stdout.
 */
import { childMain } from '../../src/child-process.js';
import { type ConcurrentOptions, measureConcurrent } from './measure-concurrent.js';
import { measureIdle } from './measure-idle.js';
import { measureSteps, type StepsOptions } from './measure-steps.js';
import type { SideId } from './side.js';

export type PeersTask =
  | ({ kind: 'steps' } & StepsOptions)
  | { kind: 'idle'; side: SideId; sessions: number; steps: number }
  | ({ kind: 'concurrent' } & ConcurrentOptions);

const log = (line: string) => process.stderr.write(`${line}\n`);

childMain(async (task: PeersTask): Promise<unknown> => {
  if (task.kind === 'steps') return measureSteps(task, log);
  if (task.kind === 'idle') return measureIdle(task.side, task.sessions, task.steps);
  if (task.kind === 'concurrent') return measureConcurrent(task, log);
  throw new Error(`unknown task ${JSON.stringify(task)}`);
});
