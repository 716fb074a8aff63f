import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  createMemoryStore,
  createSession,
  defineGuard,
  GuardDefinitionError,
  type SessionOptions,
  System,
  Timeline,
  Tool,
  User,
  useTick,
} from '../../index.js';

let ran: string[] = [];

function Agent(props: { children?: React.ReactNode }) {
  return (
    <>
      <System>Do the work.</System>
      <User>Go.</User>
      <Timeline />
      <Tool
        name="shell"
        description="Run a command."
        input={z.object({ command: z.string() })}
        execute={({ command }) => {
          ran.push(command);
          return `ran ${command}`;
        }}
      />
      {props.children}
    </>
  );
}

const shell = (command: string): ScriptedTurn => ({
  toolCalls: [{ toolName: 'shell', input: { command } }],
});

function start(
  element: React.ReactNode,
  turns: ScriptedTurn[],
  options: Partial<SessionOptions> = {},
) {
  ran = [];
  const model = scriptedModel(turns);
  const events: AgateEvent[] = [];
  const session = createSession(element, { model, onEvent: (e) => events.push(e), ...options });
  return { model, events, session };
}

/** Everything sent on model call `i`, as text. */
const request = (model: ReturnType<typeof scriptedModel>, i: number) =>
  JSON.stringify(model.calls[i]?.prompt);

const NoRm = defineGuard({
  name: 'no-rm',
  beforeToolCall: ({ call }) =>
    String((call.input as { command?: unknown }).command).startsWith('rm ')
      ? { refuse: 'rm is not allowed here; move files to trash/ instead.' }
      : undefined,
});

describe('beforeToolCall', () => {
  it('a refusal: the call does not run, the model gets a tool error with the text', async () => {
    const { session, model, events } = start(
      <Agent>
        <NoRm />
      </Agent>,
      [shell('rm -r build'), shell('ls'), 'Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(ran).toEqual(['ls']);
    const refused = events.find((e) => e.type === 'tool:refused');
    expect(refused).toMatchObject({ toolName: 'shell', by: 'no-rm' });
    expect(request(model, 1)).toContain('rm is not allowed here; move files to trash/ instead.');
    const results = events.filter((e) => e.type === 'tool:result');
    expect(results[0]).toMatchObject({ isError: true });
    expect(results[1]).toMatchObject({ isError: false, output: 'ran ls' });
  });

  it('may be async', async () => {
    const Slow = defineGuard({
      name: 'slow',
      beforeToolCall: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return { refuse: 'not now' };
      },
    });
    const { session, events } = start(
      <Agent>
        <Slow />
      </Agent>,
      [shell('ls'), 'Done.'],
    );
    await session.run();
    expect(ran).toEqual([]);
    expect(events.find((e) => e.type === 'tool:refused')).toMatchObject({
      by: 'slow',
      message: 'not now',
    });
  });
});

describe('afterToolCall', () => {
  it('replaces what the model sees (and the timeline keeps)', async () => {
    const Redact = defineGuard({
      name: 'redact',
      afterToolCall: ({ result }) =>
        typeof result.output === 'string' && result.output.includes('ls')
          ? { result: result.output.replaceAll('ls', '[redacted]') }
          : undefined,
    });
    const { session, model, events } = start(
      <Agent>
        <Redact />
      </Agent>,
      [shell('ls'), 'Done.'],
    );
    await session.run();
    expect(ran).toEqual(['ls']);
    expect(request(model, 1)).toContain('ran [redacted]');
    expect(request(model, 1)).not.toContain('ran ls');
    expect(events.find((e) => e.type === 'tool:result')).toMatchObject({
      output: 'ran [redacted]',
    });
  });
});

describe('beforeModelCall and tickEnd', () => {
  it('beforeModelCall ends the run stopped before the call is made', async () => {
    const Once = defineGuard({
      name: 'once',
      beforeModelCall: ({ tick }) =>
        tick > 1 ? { end: { status: 'stopped', reason: 'one call only' } } : undefined,
    });
    const { session, model } = start(
      <Agent>
        <Once />
      </Agent>,
      [shell('ls'), 'Done.'],
    );
    const result = await session.run();
    expect(result).toMatchObject({ status: 'stopped', reason: 'one call only', ticks: 1 });
    expect(model.calls).toHaveLength(1);
  });

  it('tickEnd sees the tick and may pause the run', async () => {
    const seen: unknown[] = [];
    const PauseOnLs = defineGuard({
      name: 'pause-on-ls',
      tickEnd: ({ toolCalls, toolResults, tick }) => {
        seen.push({
          tick,
          calls: toolCalls.map((c) => c.toolName),
          results: toolResults.map((r) => r.output),
        });
        return toolCalls.length > 0
          ? { end: { status: 'paused', reason: 'a person should look' } }
          : undefined;
      },
    });
    const { session } = start(
      <Agent>
        <PauseOnLs />
      </Agent>,
      [shell('ls'), 'Done.'],
      { store: createMemoryStore() },
    );
    const result = await session.run();
    expect(result).toMatchObject({ status: 'paused', reason: 'a person should look', ticks: 1 });
    expect(seen).toEqual([{ tick: 1, calls: ['shell'], results: ['ran ls'] }]);
  });
});

describe('exitAttempt', () => {
  const NeedsLs = defineGuard<Record<string, never>, { listed: boolean }>({
    name: 'needs-ls',
    initialState: { listed: false },
    maxRefusals: 2,
    tickEnd: ({ toolCalls, setState }) => {
      if (toolCalls.some((c) => c.toolName === 'shell')) setState({ listed: true });
    },
    exitAttempt: ({ state }) =>
      state.listed ? undefined : { refuse: 'List the files first (shell ls).' },
  });

  it('refuses like a gate: the reason is shown and the loop goes on', async () => {
    const { session, model, events } = start(
      <Agent>
        <NeedsLs />
      </Agent>,
      ['Done.', shell('ls'), 'Done now.'],
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(request(model, 1)).toContain('EXIT REFUSED: List the files first (shell ls).');
    expect(events.find((e) => e.type === 'exit:blocked')).toMatchObject({
      gates: ['needs-ls'],
      reasons: ['List the files first (shell ls).'],
      final: false,
    });
    expect(session.state.guards['needs-ls']).toEqual({ listed: true });
    expect(session.state.guards.refusals).toEqual({});
  });

  it('a guard that keeps refusing ends the run blocked, with its reason', async () => {
    const { session } = start(
      <Agent>
        <NeedsLs />
      </Agent>,
      ['Done.', 'Done.', 'Done.', 'unused'],
    );
    const result = await session.run();
    expect(result.status).toBe('blocked');
    expect(result.reason).toBe(
      'Guard "needs-ls" refused 3 attempts to finish (maxRefusals 2): List the files first (shell ls).',
    );
    expect(result.ticks).toBe(3);
  });

  it('at maxTicks while it refuses, the run is blocked, not max-ticks', async () => {
    const { session } = start(
      <Agent>
        <NeedsLs />
      </Agent>,
      ['Done.', 'Done.'],
    );
    const result = await session.run({ maxTicks: 1 });
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain(
      'guard "needs-ls" refuses to finish (List the files first (shell ls).)',
    );
  });
});

describe('render', () => {
  it('adds to the context like any component: text and tools', async () => {
    const Notes = defineGuard({
      name: 'notes',
      propsSchema: z.object({ topic: z.string() }),
      initialState: [] as string[],
      render: ({ props, state }) => (
        <>
          <System>{`Take notes about ${props.topic}. Notes so far: ${state.length}.`}</System>
          <Tool
            name="note"
            description="Add a note."
            input={z.object({ text: z.string() })}
            execute={({ text }) => `noted: ${text}`}
          />
        </>
      ),
      afterToolCall: ({ call, state, setState }) => {
        if (call.toolName === 'note')
          setState([...state, String((call.input as { text: string }).text)]);
      },
    });
    const { session, model } = start(
      <Agent>
        <Notes topic="cats" />
      </Agent>,
      [{ toolCalls: [{ toolName: 'note', input: { text: 'they sleep' } }] }, 'Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(model.calls[0]?.tools?.map((t) => t.name)).toContain('note');
    expect(request(model, 0)).toContain('Take notes about cats. Notes so far: 0.');
    expect(request(model, 1)).toContain('Notes so far: 1.');
    expect(session.state.guards.notes).toEqual(['they sleep']);
  });

  it('bad props are an error naming the guard', async () => {
    const Typed = defineGuard({ name: 'typed', propsSchema: z.object({ limit: z.number() }) });
    const Untyped = Typed as unknown as (props: { limit: string }) => React.ReactNode;
    const { session } = start(
      <Agent>
        <Untyped limit="ten" />
      </Agent>,
      ['Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain(
      "<typed>: its props do not fit the guard's propsSchema at limit",
    );
  });
});

describe('state', () => {
  const Counter = defineGuard({
    name: 'counter',
    initialState: { calls: 0 },
    stateSchema: z.object({ calls: z.number().int().nonnegative() }),
    afterToolCall: ({ setState }) => setState((previous) => ({ calls: previous.calls + 1 })),
  });

  it('lives at session.state.guards[name], travels in a snapshot and is restored', async () => {
    const first = start(
      <Agent>
        <Counter />
      </Agent>,
      [shell('a'), shell('b'), 'Done.'],
    );
    expect(first.session.state.guards.counter).toBeUndefined();
    await first.session.run();
    expect(first.session.state.guards.counter).toEqual({ calls: 2 });
    const snapshot = JSON.parse(JSON.stringify(first.session.snapshot()));
    const second = start(
      <Agent>
        <Counter />
      </Agent>,
      [shell('c'), 'Done.'],
      { snapshot },
    );
    expect(second.session.state.guards.counter).toEqual({ calls: 2 });
    await second.session.run();
    expect(second.session.state.guards.counter).toEqual({ calls: 3 });
  });

  it('a restored state that does not fit stateSchema is an error naming the path', async () => {
    const { session } = start(
      <Agent>
        <Counter />
      </Agent>,
      ['Done.'],
      { state: { guards: { counter: { calls: 'many' } } } },
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain(
      'Guard "counter": the state restored at state.guards.counter.calls is invalid',
    );
  });

  it('setState refuses a value that is not JSON or does not fit, naming the guard', async () => {
    const Bad = defineGuard({
      name: 'bad',
      tickEnd: ({ setState }) => setState(new Date() as unknown as undefined),
    });
    const { session } = start(
      <Agent>
        <Bad />
      </Agent>,
      ['Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain(
      'Guard "bad": setState gave state.guards.bad a value that is a Date, not plain JSON',
    );
  });
});

declare module '../../runtime/events.js' {
  interface GuardEventMap {
    'counted:call': { tick: number; toolName: string; count: number };
  }
}

describe('events', () => {
  it('a guard reports its declared events: they reach onEvent and RunResult.events', async () => {
    const Counted = defineGuard({
      name: 'counted',
      initialState: 0,
      afterToolCall: ({ call, state, setState, emit, tick }) => {
        setState(state + 1);
        emit({ type: 'counted:call', tick, toolName: call.toolName, count: state + 1 });
      },
    });
    const { session, events } = start(
      <Agent>
        <Counted />
      </Agent>,
      [shell('a'), shell('b'), 'Done.'],
    );
    const result = await session.run();
    const counted = [
      { type: 'counted:call', path: [], tick: 1, toolName: 'shell', count: 1 },
      { type: 'counted:call', path: [], tick: 2, toolName: 'shell', count: 2 },
    ];
    expect(events.filter((e) => e.type === 'counted:call')).toEqual(counted);
    expect(result.events.filter((e) => e.type === 'counted:call')).toEqual(counted);
  });

  it("a guard cannot emit the tick loop's own events", async () => {
    const Liar = defineGuard({
      name: 'liar',
      tickEnd: ({ emit }) => emit({ type: 'run:end', status: 'completed', ticks: 1 } as never),
    });
    const { session } = start(
      <Agent>
        <Liar />
      </Agent>,
      ['Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain('Guard "liar": emit threw: an event needs a type of its own');
  });
});

let asked = 0;
const Counting = defineGuard({
  name: 'counting',
  beforeModelCall: () => {
    asked++;
  },
});
/** Mounts the guard on the first tick only. */
function Conditional() {
  return <Agent>{useTick() === 1 ? <Counting /> : null}</Agent>;
}

describe('faults', () => {
  it('a hook that throws ends the run error, naming the guard and the hook', async () => {
    const Broken = defineGuard({
      name: 'broken',
      beforeToolCall: () => {
        throw new TypeError('cannot read command');
      },
    });
    const { session } = start(
      <Agent>
        <Broken />
      </Agent>,
      [shell('ls'), 'Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain('Guard "broken": beforeToolCall threw: cannot read command');
    expect(ran).toEqual([]);
  });

  it('an answer that is not one is an error, not silently ignored', async () => {
    const Wrong = defineGuard({
      name: 'wrong',
      beforeModelCall: () => ({ end: { status: 'completed', reason: 'x' } }) as never,
    });
    const { session, model } = start(
      <Agent>
        <Wrong />
      </Agent>,
      ['Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain('Guard "wrong": beforeModelCall threw: it answered');
    expect(model.calls).toHaveLength(0);
  });

  it('the same guard mounted twice is an error', async () => {
    const { session } = start(
      <Agent>
        <NoRm />
        <NoRm />
      </Agent>,
      ['Done.'],
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain('Guard "no-rm" is mounted more than once');
  });

  it('a bad definition fails where it is defined', () => {
    expect(() => defineGuard({ name: 'has space' })).toThrow(GuardDefinitionError);
    // A built-in family's slice of state.guards is not a guard's to take.
    for (const name of [
      'gates',
      'continue',
      'checkpoints',
      'todos',
      'phase',
      'approvals',
      'refusals',
    ]) {
      expect(() => defineGuard({ name })).toThrow(
        `defineGuard({ name: "${name}" }): "${name}" is taken by a built-in guard family`,
      );
    }
    expect(() => defineGuard({ name: 'x', tickEnd: 'no' as never })).toThrow(
      'Guard "x": tickEnd is string, not a function.',
    );
    expect(() =>
      defineGuard({
        name: 'y',
        initialState: { n: 'one' },
        stateSchema: z.object({ n: z.number() }) as never,
      }),
    ).toThrow('Guard "y": initialState does not fit');
  });

  it('a guard that is not mounted is not asked', async () => {
    asked = 0;
    const { session } = start(<Conditional />, [shell('ls'), shell('ls'), 'Done.']);
    await session.run();
    expect(asked).toBe(1);
  });
});
