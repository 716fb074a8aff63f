import { createSession } from '@agate/core';
import type { ModelMessage } from 'ai';
import { type Summary, summarize } from './stats.js';
import { BenchAgent, benchModel, TOOL_NAMES } from './workload.js';

/**
 * A timeline like the tick loop builds: assistant tool calls alternating with their tool
 * results (the task itself is the agent's fixed <User> message). Exactly `count` messages.
 */
export function buildTimeline(count: number): ModelMessage[] {
  const timeline: ModelMessage[] = [];
  for (let i = 0; timeline.length < count; i++) {
    const toolName = TOOL_NAMES[i % TOOL_NAMES.length]!;
    const toolCallId = `call-${i}`;
    timeline.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Checking item ${i}.` },
        { type: 'tool-call', toolCallId, toolName, input: { id: i, note: `item ${i} checked` } },
      ],
    });
    if (timeline.length < count) {
      timeline.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId,
            toolName,
            output: { type: 'json', value: { ok: true, id: i, length: 14 } },
          },
        ],
      });
    }
  }
  return timeline;
}

export interface RenderCostOptions {
  sizes: readonly number[];
  warmup: number;
  /** Stop measuring a size after this many renders... */
  maxRenders: number;
  /** ...or after this much time, whichever comes first (at least `minRenders`). */
  budgetMs: number;
  minRenders: number;
}

export interface RenderCost {
  messages: number;
  /** Re-rendering with unchanged state. */
  renders: Summary;
  /**
   * Inside real ticks: from `tick:start` to `model:request` (nothing but render + compile
   * happens in between without a <ContinueGate>), the timeline changing every tick.
   */
  inTick: Summary;
}

/**
 * `session.render()` (React render + commit + compile to a CompiledContext) on a session
 * seeded with a timeline of each size and the 20-tool agent of the tick benchmark, timed one
 * render at a time. Two ways: re-rendering the same state (`renders`), and inside real ticks
 * (`inTick`), where each tick appends an assistant/tool pair and `maxTimelineMessages` trims
 * the oldest pair so the size stays put.
 */
export async function measureRenderCost(options: RenderCostOptions): Promise<RenderCost[]> {
  const results: RenderCost[] = [];
  for (const size of options.sizes) {
    const session = createSession(<BenchAgent />, {
      model: benchModel(1),
      state: { timeline: buildTimeline(size) },
      maxTimelineMessages: Math.max(5_000, size + 10),
    });
    let renders: Summary;
    try {
      renders = timeRenders(options, () => session.render(), size);
    } finally {
      session.dispose();
    }
    results.push({ messages: size, renders, inTick: await timeRendersInTicks(options, size) });
  }
  return results;
}

function timeRenders(
  options: RenderCostOptions,
  render: () => { messages: readonly unknown[] },
  size: number,
): Summary {
  for (let i = 0; i < options.warmup; i++) render();
  const times: number[] = [];
  const started = performance.now();
  while (
    times.length < options.minRenders ||
    (times.length < options.maxRenders && performance.now() - started < options.budgetMs)
  ) {
    const t0 = performance.now();
    const context = render();
    times.push(performance.now() - t0);
    // The timeline plus the agent's fixed <User> message.
    if (context.messages.length !== size + 1) {
      throw new Error(`render produced ${context.messages.length} messages, expected ${size + 1}`);
    }
  }
  return summarize(times);
}

async function timeRendersInTicks(options: RenderCostOptions, size: number): Promise<Summary> {
  const times: number[] = [];
  let tickStart = 0;
  let measuring = false;
  const session = createSession(<BenchAgent />, {
    // Never finishes: every reply is a tool call (the run ends at maxTicks).
    model: benchModel(Number.MAX_SAFE_INTEGER),
    state: { timeline: buildTimeline(size) },
    maxTimelineMessages: size,
    onEvent: (event) => {
      if (event.type === 'tick:start') tickStart = performance.now();
      else if (event.type === 'model:request') {
        if (measuring) times.push(performance.now() - tickStart);
        if (event.messages !== size + 1) {
          throw new Error(`tick rendered ${event.messages} messages, expected ${size + 1}`);
        }
      }
    },
  });
  try {
    const warm = await session.run({ maxTicks: Math.min(options.warmup, 10) });
    if (warm.status !== 'max-ticks')
      throw new Error(`warm-up run ended ${warm.status}: ${warm.reason}`);
    measuring = true;
    const started = performance.now();
    while (
      times.length < options.minRenders ||
      (times.length < options.maxRenders && performance.now() - started < options.budgetMs)
    ) {
      const result = await session.run({ maxTicks: 10 });
      if (result.status !== 'max-ticks')
        throw new Error(`run ended ${result.status}: ${result.reason}`);
    }
  } finally {
    session.dispose();
  }
  return summarize(times);
}
