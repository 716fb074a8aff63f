import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgateEvent, createSession, run, System, Timeline, Tool, User } from '../index.js';

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

describe("streaming: 'auto' (the default)", () => {
  /** Runs the script in a fresh session; `watch` may subscribe before the run starts. */
  async function runSession(
    options: { streaming?: boolean | 'auto' },
    watch?: (session: ReturnType<typeof createSession>) => void,
  ) {
    const model = script();
    const events: AgateEvent[] = [];
    const session = createSession(<Agent />, {
      model,
      id: 'same-session',
      ...options,
      onEvent: (e) => events.push(e),
    });
    watch?.(session);
    const result = await session.run();
    return { model, events, result, state: session.state };
  }

  it('makes non-streaming calls when nobody subscribed for deltas, even with onEvent', async () => {
    const { model, events } = await runSession({});
    expect(model.doStreamCalls.length).toBe(0);
    expect(model.doGenerateCalls.length).toBe(4);
    // onEvent still sees the text, as one delta per reply.
    const deltas = events.filter((e) => e.type === 'model:delta' && e.kind === 'text');
    expect(deltas.map((e) => (e.type === 'model:delta' ? e.delta : ''))).toEqual(['The sum is 5.']);
  });

  it('streams while a listener is subscribed for model:delta by type, and only that', async () => {
    const seen: string[] = [];
    const plain: AgateEvent[] = [];
    const { model } = await runSession({}, (session) => {
      session.subscribe((e) => plain.push(e));
      session.subscribe((e) => seen.push(e.type), { types: ['model:delta'] });
    });
    expect(model.doStreamCalls.length).toBe(4);
    expect(model.doGenerateCalls.length).toBe(0);
    // The filtered listener got deltas only (several: streamed in word-sized pieces).
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set(['model:delta']));
    expect(plain.some((e) => e.type === 'run:end')).toBe(true);
  });

  it('stops streaming once the delta subscriber unsubscribes', async () => {
    const model = script();
    const session = createSession(<Agent />, { model });
    const unsubscribe = session.subscribe(() => {}, { types: ['model:delta', 'tick:end'] });
    await session.tick();
    unsubscribe();
    await session.run();
    expect(model.doStreamCalls.length).toBe(1);
    expect(model.doGenerateCalls.length).toBe(3);
  });

  it('gives the same results, state and events (other than deltas) either way', async () => {
    const streamed = await runSession({ streaming: true });
    const generated = await runSession({});
    expect(streamed.model.doStreamCalls.length).toBe(4);
    expect(generated.model.doGenerateCalls.length).toBe(4);

    const withoutDeltas = (events: AgateEvent[]) => events.filter((e) => e.type !== 'model:delta');
    expect(withoutDeltas(generated.events)).toEqual(withoutDeltas(streamed.events));
    const { events: streamedEvents, ...streamedResult } = streamed.result;
    const { events: generatedEvents, ...generatedResult } = generated.result;
    expect(withoutDeltas(generatedEvents)).toEqual(withoutDeltas(streamedEvents));
    expect(generatedResult).toEqual(streamedResult);
    expect(generated.result.timeline).toEqual(streamed.result.timeline);
    expect(generated.result.usage).toEqual(streamed.result.usage);
    expect(generated.result.usage.totalTokens).toBeGreaterThan(0);
    // Session state too, except the wall time the ticks took.
    const timeless = (state: typeof generated.state) => ({
      ...state,
      guards: { ...state.guards, continue: { ...state.guards.continue, elapsedMs: 0 } },
    });
    expect(timeless(generated.state)).toEqual(timeless(streamed.state));
    // The deltas carry the same text, in one piece or several.
    const text = (events: AgateEvent[]) =>
      events.map((e) => (e.type === 'model:delta' ? `${e.kind}:${e.delta}` : '')).join('');
    expect(text(generated.events).replace(/text:|reasoning:/g, '')).toBe(
      text(streamed.events).replace(/text:|reasoning:/g, ''),
    );
  });
});
