import { type ScriptedReply, scriptedModel } from '@agate/testing';
import type { ModelMessage } from 'ai';
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  Ephemeral,
  ModelCallError,
  RenderError,
  type Session,
  SessionStateError,
  System,
  Timeline,
  Tool,
  type ToolExecuteContext,
  User,
  useSession,
  useTick,
  useTimeline,
} from '../index.js';
import { run } from './run.js';
import { createSession } from './session.js';

const addInput = z.object({ a: z.number(), b: z.number() });

/** A calculator agent; `extra` lets a test add tools or probes. */
function Calculator(props: { extra?: ReactNode }) {
  return (
    <>
      <System>You are a calculator. Use the tools.</System>
      <User>What is 2 + 3?</User>
      <Timeline />
      <Tool
        name="add"
        description="Add two numbers"
        input={addInput}
        execute={({ a, b }) => a + b}
      />
      <Tool
        name="fail"
        input={z.object({})}
        execute={() => {
          throw new Error('disk full');
        }}
      />
      {props.extra}
    </>
  );
}

const addCall = (a: unknown, b: unknown, toolCallId?: string): ScriptedReply => ({
  toolCalls: [{ toolName: 'add', input: { a, b }, ...(toolCallId ? { toolCallId } : {}) }],
});

/** The tool-result parts of the timeline, in order. */
function toolResults(timeline: readonly ModelMessage[]) {
  return timeline.flatMap((m) =>
    m.role === 'tool' && Array.isArray(m.content)
      ? m.content.filter((p) => p.type === 'tool-result')
      : [],
  );
}

function lastPromptText(prompt: ReadonlyArray<{ role: string; content: unknown }> | undefined) {
  const last = prompt?.at(-1);
  if (!last || !Array.isArray(last.content)) return undefined;
  const part = last.content[0] as { type: string; text?: string } | undefined;
  return part?.type === 'text' ? part.text : undefined;
}

/** Shows the timeline length the component saw. */
function Rounds() {
  const timeline = useTimeline();
  return <Ephemeral>{`timeline has ${timeline.length} messages`}</Ephemeral>;
}

const Theme = createContext('none');

function ThemeProvider(props: { children: ReactNode }) {
  const [theme] = useState(() => 'dark');
  return <Theme.Provider value={theme}>{props.children}</Theme.Provider>;
}

function Probe() {
  const tick = useTick();
  const [firstTick] = useState(tick);
  const [effects, setEffects] = useState(0);
  const theme = useContext(Theme);
  // Runs once per tick: the dependency is the point, not a value the effect reads.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  useEffect(() => {
    setEffects((n) => n + 1);
  }, [tick]);
  return (
    <Ephemeral>{`tick=${tick} first=${firstTick} effects=${effects} theme=${theme}`}</Ephemeral>
  );
}

type Seen = { session: Session; tick: number; timeline: number };

function Hooks(props: { seen: Seen[] }) {
  props.seen.push({ session: useSession(), tick: useTick(), timeline: useTimeline().length });
  return null;
}

function Effect(props: { onCleanup: () => void }) {
  const { onCleanup } = props;
  useEffect(() => onCleanup, [onCleanup]);
  return null;
}

function Flaky() {
  if (useTick() === 2) throw new Error('lost my config');
  return null;
}

describe('tool results', () => {
  it('joins the timeline, and the next tick re-renders with them', async () => {
    const model = scriptedModel([addCall(2, 3, 'c1'), 'The answer is 5.']);
    const result = await run(<Calculator extra={<Rounds />} />, { model });

    expect(result.status).toBe('completed');
    expect(result.timeline).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'add',
            output: { type: 'json', value: 5 },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'The answer is 5.' }] },
    ]);
    expect(lastPromptText(model.calls[0]?.prompt)).toBe('timeline has 0 messages');
    expect(lastPromptText(model.calls[1]?.prompt)).toBe('timeline has 2 messages');
    // The second request carries the call and its result.
    const roles = model.calls[1]?.prompt.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
  });

  it('runs calls one at a time in the order the model made them', async () => {
    const order: string[] = [];
    const slow = (
      <Tool
        name="step"
        input={z.object({ id: z.string(), wait: z.number() })}
        execute={async ({ id, wait }) => {
          order.push(`start ${id}`);
          await new Promise((resolve) => setTimeout(resolve, wait));
          order.push(`end ${id}`);
          return id;
        }}
      />
    );
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'step', input: { id: 'first', wait: 20 } },
          { toolName: 'step', input: { id: 'second', wait: 0 } },
        ],
      },
      'done',
    ]);
    const result = await run(<Calculator extra={slow} />, { model });
    expect(order).toEqual(['start first', 'end first', 'start second', 'end second']);
    expect(toolResults(result.timeline).map((r) => r.output)).toEqual([
      { type: 'text', value: 'first' },
      { type: 'text', value: 'second' },
    ]);
  });

  it('passes the call id, tick, timeline and abort signal to execute', async () => {
    const seen: ToolExecuteContext[] = [];
    const probe = (
      <Tool
        name="probe"
        input={z.object({})}
        execute={(_input, context) => {
          seen.push(context);
          return 'ok';
        }}
      />
    );
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'probe', toolCallId: 'p1' }] },
      { toolCalls: [{ toolName: 'probe', toolCallId: 'p2' }] },
      'done',
    ]);
    await run(<Calculator extra={probe} />, { model });
    expect(seen.map((c) => [c.toolCallId, c.tick, c.messages.length])).toEqual([
      ['p1', 1, 1],
      ['p2', 2, 3],
    ]);
    expect(seen[0]?.abortSignal).toBeInstanceOf(AbortSignal);
  });
});

describe('bad tool calls go back to the model', () => {
  it('reports invalid arguments (zod) by name and the run continues', async () => {
    const model = scriptedModel([addCall(2, 'three'), addCall(2, 3), 'It is 5.']);
    const result = await run(<Calculator />, { model });

    expect(result.status).toBe('completed');
    const [bad, good] = toolResults(result.timeline);
    expect(bad?.output.type).toBe('error-text');
    const text = bad?.output.type === 'error-text' ? bad.output.value : '';
    expect(text).toContain('Invalid arguments for tool "add"');
    expect(text).toMatch(/expected number/i);
    expect(text).toContain('→ at b');
    // The expected shape is spelled out so the model can fix the call.
    expect(text).toContain('Expected arguments matching:');
    expect(good?.output).toEqual({ type: 'json', value: 5 });
  });

  it('answers an unknown tool with the list of available tools', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'multiply', input: {} }] }, 'ok']);
    const result = await run(<Calculator />, { model });
    expect(result.status).toBe('completed');
    expect(toolResults(result.timeline)[0]?.output).toEqual({
      type: 'error-text',
      value: 'Unknown tool "multiply". Available tools: add, fail.',
    });
  });

  it('answers malformed JSON arguments with a tool error and replays the call as {}', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'add', input: '{"a":' }] }, 'ok']);
    const events: AgateEvent[] = [];
    const result = await run(<Calculator />, { model, onEvent: (e) => events.push(e) });

    expect(result.status).toBe('completed');
    const output = toolResults(result.timeline)[0]?.output as { type: string; value: string };
    expect(output.type).toBe('error-text');
    expect(output.value).toContain('Invalid arguments for tool "add": not valid JSON ({"a":)');
    // The event keeps what the model sent; the timeline replays an object, which every
    // provider accepts as tool-call input.
    expect(events.find((e) => e.type === 'tool:call')).toMatchObject({ input: '{"a":' });
    const call = result.timeline[0]?.content;
    expect(Array.isArray(call) && call[0]).toMatchObject({ type: 'tool-call', input: {} });
  });

  it('turns a throwing execute into a tool error and continues', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'fail', input: {} }] },
      addCall(1, 1),
      'two',
    ]);
    const result = await run(<Calculator />, { model });
    expect(result.status).toBe('completed');
    expect(toolResults(result.timeline).map((r) => r.output)).toEqual([
      { type: 'error-text', value: 'Tool "fail" failed: disk full' },
      { type: 'json', value: 2 },
    ]);
    expect(result.text).toBe('two');
  });
});

describe('React state across ticks', () => {
  it('keeps useState, useEffect and context state in the same root', async () => {
    const model = scriptedModel([addCall(1, 2), addCall(3, 4), 'done']);
    await run(
      <ThemeProvider>
        <Calculator extra={<Probe />} />
      </ThemeProvider>,
      { model },
    );
    expect(model.calls.map((c) => lastPromptText(c.prompt))).toEqual([
      'tick=1 first=1 effects=0 theme=dark',
      'tick=2 first=1 effects=1 theme=dark',
      'tick=3 first=1 effects=2 theme=dark',
    ]);
  });

  it('gives hooks the session, the tick number and the timeline', async () => {
    const seen: Seen[] = [];
    const model = scriptedModel([addCall(1, 2), 'done']);
    const session = createSession(<Calculator extra={<Hooks seen={seen} />} />, { model });
    await session.run();
    expect(seen.every((s) => s.session === session)).toBe(true);
    expect(seen.map((s) => [s.tick, s.timeline])).toEqual([
      [1, 0],
      [2, 2],
    ]);
    session.dispose();
  });

  it('runs effect cleanups when run() disposes the session', async () => {
    let cleaned = false;
    const onCleanup = () => {
      cleaned = true;
    };
    await run(<Calculator extra={<Effect onCleanup={onCleanup} />} />, {
      model: scriptedModel(['done']),
    });
    expect(cleaned).toBe(true);
  });
});

describe('events', () => {
  /** Event types with runs of model:delta collapsed, for readable order assertions. */
  const types = (events: AgateEvent[]) =>
    events
      .map((e) => e.type)
      .filter((type, i, all) => !(type === 'model:delta' && all[i - 1] === 'model:delta'));

  it('reports a run in order through onEvent, subscribe and RunResult.events', async () => {
    const model = scriptedModel([{ text: 'Adding now.', ...addCall(2, 3) }, 'The answer is 5.']);
    const fromOption: AgateEvent[] = [];
    const fromSubscribe: AgateEvent[] = [];
    const session = createSession(<Calculator />, {
      model,
      onEvent: (e) => fromOption.push(e),
    });
    const unsubscribe = session.subscribe((e) => fromSubscribe.push(e));
    const result = await session.run();

    const tick = ['tick:start', 'model:request', 'model:delta', 'model:response'];
    expect(types(fromOption)).toEqual([
      'run:start',
      ...tick,
      'tool:call',
      'tool:result',
      'tick:end',
      ...tick,
      'tick:end',
      'exit:attempt',
      'run:end',
    ]);
    expect(fromSubscribe).toEqual(fromOption);
    expect(result.events).toEqual(fromOption);

    const deltas = fromOption.filter((e) => e.type === 'model:delta');
    expect(deltas.map((e) => e.delta).join('')).toBe('Adding now.The answer is 5.');
    expect(fromOption.find((e) => e.type === 'model:request')).toEqual({
      type: 'model:request',
      path: [],
      tick: 1,
      messages: 1,
      tools: ['add', 'fail'],
      ephemeral: 0,
    });
    expect(fromOption.find((e) => e.type === 'tool:result')).toMatchObject({
      tick: 1,
      toolName: 'add',
      output: 5,
      isError: false,
    });
    expect(fromOption.at(-1)).toEqual({ type: 'run:end', path: [], status: 'completed', ticks: 2 });

    unsubscribe();
    const before = fromSubscribe.length;
    await session.run({ maxTicks: 1 }); // the script is exhausted: an 'error' run, still reported
    expect(fromSubscribe).toHaveLength(before);
    expect(fromOption.length).toBeGreaterThan(before);
    session.dispose();
  });
});

describe('RunResult', () => {
  it('holds status, ticks, text, timeline and summed usage', async () => {
    const model = scriptedModel([
      { ...addCall(2, 3), usage: { inputTokens: 100, outputTokens: 10 } },
      { text: 'Five.', usage: { inputTokens: 150, outputTokens: 5 } },
    ]);
    const session = createSession(<Calculator />, { model });
    const result = await session.run();
    expect(result).toMatchObject({
      status: 'completed',
      ticks: 2,
      totalTicks: 2,
      text: 'Five.',
      usage: { inputTokens: 250, outputTokens: 15, totalTokens: 265 },
      gates: {},
      knobs: {},
    });
    expect(result.reason).toBeUndefined();
    expect(result.error).toBeUndefined();
    expect(result.timeline).toBe(session.state.timeline);
    expect(result.timeline).toHaveLength(3);
    expect(session.state.status).toBe('completed');
    session.dispose();
  });

  it("ends with 'max-ticks' and a reason when the model never finishes", async () => {
    const model = scriptedModel([addCall(1, 1)], { whenExhausted: 'repeat-last' });
    const session = createSession(<Calculator />, { model, maxTicks: 5 });
    const result = await session.run({ maxTicks: 2 });
    expect(result.status).toBe('max-ticks');
    expect(result.reason).toContain('maxTicks (2) reached before the model finished');
    expect(result.ticks).toBe(2);
    expect(model.calls).toHaveLength(2);

    // Calling run() again continues the same session; totals carry over.
    const more = await session.run({ maxTicks: 1 });
    expect(more).toMatchObject({ status: 'max-ticks', ticks: 1, totalTicks: 3 });
    expect(more.timeline).toHaveLength(6);
    session.dispose();
  });
});

describe('abort and resume', () => {
  it('aborts mid-model-call, keeps the last completed tick, and resumes on run()', async () => {
    const controller = new AbortController();
    const model = scriptedModel([
      addCall(2, 3),
      () => {
        // Abort while this model call is in flight.
        controller.abort(new Error('user pressed stop'));
        return { text: 'never arrives', delayMs: 60_000 };
      },
      'The answer is 5.',
    ]);
    const session = createSession(<Calculator />, { model });
    const aborted = await session.run({ signal: controller.signal });

    expect(aborted.status).toBe('aborted');
    expect(aborted.reason).toContain('user pressed stop');
    expect(aborted.reason).toContain('Call run() again to resume');
    expect(aborted.ticks).toBe(1);
    expect(session.state.tick).toBe(1);
    expect(session.state.timeline).toHaveLength(2);
    expect(session.state.status).toBe('aborted');
    const afterAbort = session.state.timeline;

    const resumed = await session.run();
    expect(resumed.status).toBe('completed');
    expect(resumed.text).toBe('The answer is 5.');
    expect(resumed.totalTicks).toBe(2);
    expect(resumed.timeline.slice(0, 2)).toEqual(afterAbort);
    expect(resumed.timeline).toHaveLength(3);
    session.dispose();
  });

  it('discards a tick aborted during tool execution', async () => {
    const controller = new AbortController();
    const stopper = (
      <Tool
        name="stop"
        input={z.object({})}
        execute={() => {
          controller.abort();
          return 'ran anyway';
        }}
      />
    );
    const model = scriptedModel([addCall(1, 1), { toolCalls: [{ toolName: 'stop' }] }, 'done']);
    const session = createSession(<Calculator extra={stopper} />, { model });
    const result = await session.run({ signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(session.state.tick).toBe(1);
    expect(session.state.timeline).toHaveLength(2);
    session.dispose();
  });

  it('does not start when the signal is already aborted', async () => {
    const model = scriptedModel(['never']);
    const result = await run(<Calculator />, { model, signal: AbortSignal.abort() });
    expect(result.status).toBe('aborted');
    expect(model.calls).toHaveLength(0);
  });
});

describe('errors', () => {
  it("ends with 'error' when a component throws, keeping the session state", async () => {
    const model = scriptedModel([addCall(2, 3), 'never reached']);
    const session = createSession(<Calculator extra={<Flaky />} />, { model });
    const result = await session.run();

    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(RenderError);
    expect(result.error?.message).toBe(
      'A component threw while rendering the agent: lost my config',
    );
    expect(result.reason).toBe(`Tick 2, render: ${result.error?.message}`);
    expect(session.state.tick).toBe(1);
    expect(session.state.timeline).toHaveLength(2);
    expect(result.timeline).toBe(session.state.timeline);
    expect(model.calls).toHaveLength(1);
    session.dispose();
  });

  it("ends with 'error' and a ModelCallError when the model call fails", async () => {
    const model = scriptedModel([addCall(1, 1), { error: new Error('rate limited (429)') }]);
    const session = createSession(<Calculator />, { model });
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(ModelCallError);
    expect(result.error?.message).toBe('The model call failed: rate limited (429)');
    expect(session.state.timeline).toHaveLength(2);
    session.dispose();
  });

  it('reports an exhausted script as a model call error', async () => {
    const result = await run(<Calculator />, { model: scriptedModel([]) });
    expect(result.status).toBe('error');
    expect(result.error?.message).toContain(
      'The model call failed: scriptedModel: the script has 0 turns',
    );
  });

  it('refuses a second concurrent run() or tick() with SessionStateError', async () => {
    const model = scriptedModel([{ text: 'slow', delayMs: 5 }]);
    const session = createSession(<Calculator />, { model });
    const first = session.run();
    await expect(session.run()).rejects.toThrow(SessionStateError);
    await expect(session.run()).rejects.toThrow('run() is already in progress');
    await expect(session.tick()).rejects.toThrow(SessionStateError);
    expect((await first).status).toBe('completed');
    expect(model.calls).toHaveLength(1);
    session.dispose();
  });

  it('a throwing event listener does not change the run: one warning, and the session stays usable', async () => {
    const model = scriptedModel(['done', 'again']);
    const session = createSession(<Calculator />, {
      model,
      onEvent: (e) => {
        if (e.type === 'run:start') throw new Error('listener bug');
      },
    });
    const first = await session.run();
    expect(first.status).toBe('completed');
    expect(first.events.filter((e) => e.type === 'warning')).toEqual([
      {
        type: 'warning',
        path: [],
        tick: 0,
        code: 'listener-failed',
        message:
          'An event listener failed on "run:start": listener bug. Listeners are observers, so the run went on; this listener is not reported again.',
      },
    ]);
    const second = await session.run();
    expect(second.status).toBe('completed');
    // A run's result holds its own events: the listener failed again, and is not reported again.
    expect(second.events.some((e) => e.type === 'run:start')).toBe(true);
    expect(second.events.filter((e) => e.type === 'warning')).toHaveLength(0);
    session.dispose();
  });

  it('refuses to run a disposed session', async () => {
    const session = createSession(<Calculator />, { model: scriptedModel(['x']) });
    session.dispose();
    await expect(session.run()).rejects.toThrow(SessionStateError);
    expect(() => session.render()).toThrow('This session was disposed');
  });
});

describe('session state', () => {
  it('is frozen, JSON-serializable data after a run with tool calls', async () => {
    const rich = (
      <Tool
        name="rich"
        input={z.object({})}
        execute={() => ({ when: new Date(0), list: [1, undefined, 'x'], skip: undefined })}
      />
    );
    const model = scriptedModel([
      {
        reasoning: 'plan',
        text: 'Working.',
        toolCalls: [
          { toolName: 'add', input: { a: 1, b: 2 } },
          { toolName: 'add', input: '{"a":' },
          { toolName: 'rich', input: {} },
          { toolName: 'fail', input: {} },
          { toolName: 'nope', input: {} },
        ],
      },
      'done',
    ]);
    const session = createSession(<Calculator extra={rich} />, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');

    const state = session.state;
    expect(JSON.parse(JSON.stringify(state))).toStrictEqual(state);
    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.timeline)).toBe(true);
    expect(toolResults(state.timeline)[2]?.output).toEqual({
      type: 'json',
      value: { when: '1970-01-01T00:00:00.000Z', list: [1, null, 'x'] },
    });
    session.dispose();
  });
});
