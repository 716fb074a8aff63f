import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContinueGate, createSession, System, Timeline, Tool, User } from '../index.js';
import type { TickResult } from '../state/tick-result.js';
import { deepFreeze, tickMessages } from '../state/update.js';
import { RecentTicks } from './recent-ticks.js';

const usage = { inputTokens: 3, outputTokens: 2, totalTokens: 5 };

function tick(n: number, overrides: Partial<TickResult> = {}): TickResult {
  return {
    tick: n,
    toolCalls: [{ toolCallId: `c${n}`, toolName: 'read', input: { path: `f${n}` } }],
    toolResults: [{ toolCallId: `c${n}`, toolName: 'read', output: { lines: n }, isError: false }],
    text: n % 2 === 0 ? `thinking ${n}` : '',
    finishReason: 'tool-calls',
    usage,
    ...overrides,
  };
}

/** As recordTick does: the messages written to the timeline, frozen there. */
function add(ticks: RecentTicks, result: TickResult, reasoning = ''): void {
  const messages = tickMessages(result, reasoning).map((m) => deepFreeze(m));
  ticks.add(result, messages);
}

describe('RecentTicks', () => {
  it('gives back equal results after release, rebuilt from the timeline messages', () => {
    const ticks = new RecentTicks(50);
    const results = [
      tick(1),
      tick(2, { toolCalls: [], toolResults: [], text: 'done', finishReason: 'stop' }),
      tick(3, {
        toolResults: [
          { toolCallId: 'c3', toolName: 'read', output: 'no such file', isError: true },
        ],
      }),
      tick(4, {
        toolCalls: [
          { toolCallId: 'a', toolName: 'read', input: { path: 'x' } },
          { toolCallId: 'b', toolName: 'write', input: { path: 'y' } },
        ],
        toolResults: [
          { toolCallId: 'a', toolName: 'read', output: 'text output', isError: false },
          { toolCallId: 'b', toolName: 'write', output: { code: 1 }, isError: true },
        ],
      }),
    ];
    for (const [i, result] of results.entries()) add(ticks, result, i === 0 ? 'why' : '');
    expect(ticks.list).toEqual(results);
    ticks.release();
    const rebuilt = ticks.list;
    expect(rebuilt).toEqual(results);
    expect(rebuilt.map((r) => Object.keys(r.toolResults[0] ?? {}).length)).toEqual([4, 0, 4, 4]);
    expect(rebuilt[0]).not.toBe(results[0]);
    // One array per run: the guards' view grows with the ticks added after it was read.
    add(ticks, tick(5));
    expect(rebuilt).toHaveLength(5);
    expect(rebuilt[4]).toEqual(tick(5));
  });

  it('keeps whole the ticks their messages cannot give back', () => {
    const ticks = new RecentTicks(50);
    const results = [
      // Malformed arguments are replayed as {} in the timeline.
      tick(1, { toolCalls: [{ toolCallId: 'c1', toolName: 'read', input: '{"path":' }] }),
      tick(2, {
        toolResults: [
          { toolCallId: 'c2', toolName: 'read', output: 'no', isError: true, refusedBy: 'gate' },
        ],
      }),
      tick(3, {
        toolResults: [
          {
            toolCallId: 'c3',
            toolName: 'read',
            output: { ok: true },
            isError: false,
            modelOutput: { type: 'content', value: [] },
          },
        ],
      }),
    ];
    for (const result of results) add(ticks, result);
    ticks.release();
    const rebuilt = ticks.list;
    expect(rebuilt).toEqual(results);
    for (const [i, result] of results.entries()) expect(rebuilt[i]).toBe(result);
  });

  it('keeps the text recorded for a continued reply, not the message text', () => {
    const ticks = new RecentTicks(50);
    const result = tick(1, { toolCalls: [], toolResults: [], text: 'rest', finishReason: 'stop' });
    const recorded = { ...result, text: 'cut off and rest' };
    ticks.add(
      recorded,
      tickMessages(result, '').map((m) => deepFreeze(m)),
    );
    ticks.release();
    expect(ticks.list).toEqual([recorded]);
  });

  it('holds at most its cap, oldest dropped, expanded or not', () => {
    const ticks = new RecentTicks(3);
    for (let n = 1; n <= 5; n++) add(ticks, tick(n));
    expect(ticks.list.map((r) => r.tick)).toEqual([3, 4, 5]);
    add(ticks, tick(6));
    expect(ticks.list.map((r) => r.tick)).toEqual([4, 5, 6]);
    ticks.release();
    add(ticks, tick(7));
    expect(ticks.list.map((r) => r.tick)).toEqual([5, 6, 7]);
  });
});

describe('a session between runs', () => {
  it("shows the guards of its next run the same recent ticks as the last run's end", async () => {
    const seen: TickResult[][] = [];
    const model = scriptedModel(
      [
        { toolCalls: [{ toolName: 'step', input: { n: 1 }, toolCallId: 'a' }] },
        { toolCalls: [{ toolName: 'step', input: { n: 2 }, toolCallId: 'b' }] },
        { toolCalls: [{ toolName: 'bad', input: {}, toolCallId: 'c' }] },
        'Done.',
      ],
      { whenExhausted: 'repeat-last' },
    );
    const session = createSession(
      <>
        <System>Work in steps.</System>
        <User>Go.</User>
        <Timeline />
        <Tool
          name="step"
          input={z.object({ n: z.number() })}
          execute={({ n }) => (n === 2 ? { n } : `did ${n}`)}
        />
        <ContinueGate
          coherence={({ recentTicks }) => {
            seen.push(structuredClone([...recentTicks]));
            return 1;
          }}
        />
      </>,
      { model },
    );
    await session.run({ maxTicks: 3 });
    const before = seen.at(-1)!;
    await session.run({ maxTicks: 1 });
    const after = seen.at(-1)!;
    // The last run's guards saw its first two ticks before its third model call.
    expect(before).toHaveLength(2);
    expect(after.slice(0, 2)).toEqual(before);
    expect(after[2]).toMatchObject({
      tick: 3,
      toolCalls: [{ toolCallId: 'c', toolName: 'bad', input: {} }],
      toolResults: [{ toolCallId: 'c', toolName: 'bad', isError: true }],
    });
    expect(after.map((t) => t.toolResults[0]?.isError)).toEqual([false, false, true]);
  });
});
