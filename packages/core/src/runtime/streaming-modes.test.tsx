import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgateEvent, run, System, Timeline, Tool, User } from '../index.js';

function Agent() {
  return (
    <>
      <System>You add numbers.</System>
      <User>Add 2 and 3.</User>
      <Timeline />
      <Tool
        name="add"
        input={z.object({ a: z.number(), b: z.number() })}
        execute={({ a, b }) => a + b}
      />
    </>
  );
}

const script = () =>
  scriptedModel([
    { reasoning: 'Use the tool.', toolCalls: [{ toolName: 'add', input: { a: 2, b: 3 } }] },
    {
      toolCalls: [
        { toolName: 'add', input: '{"a":' },
        { toolName: 'nope', input: {} },
      ],
    },
    { toolCalls: [{ toolName: 'add', input: { a: 'two', b: 3 } }] },
    'The sum is 5.',
  ]);

async function runIn(streaming: boolean) {
  const model = script();
  const events: AgateEvent[] = [];
  const result = await run(<Agent />, { model, streaming, onEvent: (e) => events.push(e) });
  return { model, events, result };
}

describe('streaming and non-streaming model calls', () => {
  it.each([true, false])('streaming: %s gives the same run', async (streaming) => {
    const { model, events, result } = await runIn(streaming);
    expect(result.status).toBe('completed');
    expect(result.text).toBe('The sum is 5.');
    // The runtime answers malformed, unknown and invalid calls itself in both modes.
    const toolResults = events.filter((e) => e.type === 'tool:result');
    expect(toolResults.map((e) => e.isError)).toEqual([false, true, true, true]);
    expect(toolResults.map((e) => String(e.output).split(/[:.]/)[0])).toEqual([
      '5',
      'Invalid arguments for tool "add"',
      'Unknown tool "nope"',
      'Invalid arguments for tool "add"',
    ]);
    const deltas = events
      .filter((e) => e.type === 'model:delta' && e.kind === 'text')
      .map((e) => (e.type === 'model:delta' ? e.delta : ''));
    expect(deltas.join('')).toBe('The sum is 5.');
    // Non-streaming reports the whole text as one delta; streaming in word-sized pieces.
    expect(deltas.length > 1).toBe(streaming);
    expect(model.doStreamCalls.length).toBe(streaming ? 4 : 0);
    expect(model.doGenerateCalls.length).toBe(streaming ? 0 : 4);
  });

  it('non-streaming keeps the same timeline as streaming', async () => {
    const [a, b] = await Promise.all([runIn(true), runIn(false)]);
    const strip = (timeline: unknown) =>
      JSON.parse(JSON.stringify(timeline).replace(/"call-\d+"/g, '"call"'));
    expect(strip(b.result.timeline)).toEqual(strip(a.result.timeline));
  });
});
