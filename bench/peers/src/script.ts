/**
 * The fake model's behaviour and the two tools, the same on every side: reply i of a run of N
 * steps calls tool_(i % 2) with `{ id: i, note }` (the bench workload's `replyAt`), and reply N
 * answers in text; every tool runs the bench workload's `executeTool`. Each side adapts the
 * replies to its own model interface and counts its model calls; the tool calls are counted in
 * the one `execute` every side's tools run.
 */
import { executedToolCalls, NARROW_TOOL_COUNT, replyAt, TOOL_SPECS } from '../../src/workload.js';

export {
  executeTool,
  FINAL_TEXT,
  MESSAGES,
  SYSTEM,
  TASK,
  toolInput,
  wait as latency,
} from '../../src/workload.js';

/** The two tools every side mounts (names and descriptions made once). */
export const PEER_TOOLS = TOOL_SPECS.slice(0, NARROW_TOOL_COUNT);
export const PEER_TOOL_COUNT = NARROW_TOOL_COUNT;

/** Usage every fake model reports (fixed: no prompt is stringified to count tokens). */
export const USAGE = { input: 100, output: 20 } as const;

/** Tool calls made by every side's tools since the process started. */
export const toolCallCount = executedToolCalls;

export type Reply = { callId: string; toolName: string; input: string } | { text: string };

/**
 * One run's replies: `steps` tool calls, then the final text. Keeps only a counter, like the
 * bench model, so nothing per call piles up in the heap figures.
 */
export class Script {
  #calls = 0;
  constructor(readonly steps: number) {}

  get calls(): number {
    return this.#calls;
  }

  next(): Reply {
    const index = this.#calls++;
    const reply = replyAt(index, this.steps + 1, PEER_TOOL_COUNT);
    return 'text' in reply ? reply : { callId: `call-${index}`, ...reply };
  }
}
