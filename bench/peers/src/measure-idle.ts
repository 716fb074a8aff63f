import { heapPer } from '../../src/stats.js';
import { checkRun, checkToolCalls } from './check.js';
import { toolCallCount } from './script.js';
import type { SideId } from './side.js';
import { SIDES } from './sides/index.js';

export interface IdleResult {
  side: SideId;
  sessions: number;
  steps: number;
  /** Heap after GC per idle session (what the side keeps between a conversation's runs), bytes. */
  bytesPerSession: number;
  gcExposed: boolean;
}

/**
 * Heap per idle session: `sessions` conversations of `steps` tool calls each (1 + 2 × steps + 1
 * messages: the task, a call and its result per step, the final text), each held as the side
 * holds it between runs. In a child process per side, so no other framework shares the heap.
 */
export async function measureIdle(
  id: SideId,
  sessions: number,
  steps: number,
): Promise<IdleResult> {
  const side = SIDES[id];
  const before = toolCallCount();
  const { bytes, items } = await heapPer(sessions, async () => {
    const { run, held } = await side.idle(steps);
    checkRun(side, steps, run);
    return held;
  });
  // One untimed conversation first (see heapPer), then `sessions`.
  checkToolCalls(side, (sessions + 1) * steps, toolCallCount() - before);
  if (items.length !== sessions) throw new Error('unreachable');
  return {
    side: id,
    sessions,
    steps,
    bytesPerSession: bytes,
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
}
