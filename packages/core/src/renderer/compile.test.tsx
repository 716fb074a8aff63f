import { renderContext, scriptedModel } from '@agate/testing';
import { jsonSchema, type ModelMessage, tool } from 'ai';
import { Activity, createElement, type ReactNode, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isCompiledContext } from '../entries/guards.js';
import {
  Assistant,
  DuplicateToolError,
  Ephemeral,
  InvalidElementError,
  Message,
  RenderError,
  Section,
  System,
  Timeline,
  Tool,
  User,
  useTick,
} from '../index.js';
import { createSession } from '../runtime/session.js';
import { tailOfTimeline } from '../state/timeline.js';

const noInput = z.object({});
const noop = () => 'ok';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});
const call = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'look', input: {} }],
});
const result = (id: string): ModelMessage => ({
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: id,
      toolName: 'look',
      output: { type: 'text', value: `seen ${id}` },
    },
  ],
});

describe('system text', () => {
  it('turns nested Sections into Markdown headings one level deeper each time', () => {
    const ctx = renderContext(
      <System>
        You are careful.
        <Section title="Rules">
          Be brief.
          <Section title="Tools">
            Prefer reading before writing.
            <Section title="Deep">Still a heading.</Section>
          </Section>
        </Section>
      </System>,
    );
    expect(ctx.system).toBe(
      [
        'You are careful.',
        '## Rules\nBe brief.',
        '### Tools\nPrefer reading before writing.',
        '#### Deep\nStill a heading.',
      ].join('\n\n'),
    );
  });

  it('stops headings at level 6', () => {
    let tree: ReactNode = 'leaf';
    for (let i = 7; i >= 1; i--) tree = <Section title={`L${i}`}>{tree}</Section>;
    const ctx = renderContext(<System>{tree}</System>);
    expect(ctx.system.split('\n').filter((line) => line.startsWith('#'))).toEqual([
      '## L1',
      '### L2',
      '#### L3',
      '##### L4',
      '###### L5',
      '###### L6',
      '###### L7',
    ]);
  });

  it('renders an untitled Section as a plain paragraph and a top-level Section as system text', () => {
    const ctx = renderContext(
      <>
        <System>
          <Section>no heading here</Section>
        </System>
        <Section title="Top">top-level section</Section>
      </>,
    );
    expect(ctx.system).toBe('no heading here\n\n## Top\ntop-level section');
  });

  it('joins several Systems with blank lines and skips empty ones', () => {
    const ctx = renderContext(
      <>
        <System>First.</System>
        <System>{null}</System>
        <System>Second.</System>
        <User>hi</User>
        <System>Third, after a message.</System>
      </>,
    );
    expect(ctx.system).toBe('First.\n\nSecond.\n\nThird, after a message.');
  });

  it('joins adjacent text and expressions into one paragraph', () => {
    const name = 'Ada';
    const ctx = renderContext(
      <System>
        Hello {name}, you have {3} tasks.
      </System>,
    );
    expect(ctx.system).toBe('Hello Ada, you have 3 tasks.');
  });
});

describe('messages', () => {
  it('keeps Message/User/Assistant in tree order around the Timeline', () => {
    const timeline = [user('from the timeline'), assistant('timeline reply')];
    const ctx = renderContext(
      <>
        <System>sys</System>
        <User>before</User>
        <Assistant>ack</Assistant>
        <Timeline />
        {/* biome-ignore lint/a11y/useValidAriaRole: a chat role, not an ARIA role */}
        <Message role="user">after</Message>
      </>,
      { timeline },
    );
    expect(ctx.messages).toEqual([
      { role: 'user', content: 'before' },
      { role: 'assistant', content: 'ack' },
      ...timeline,
      { role: 'user', content: 'after' },
    ]);
  });

  it('places messages after the Timeline when they come after it in the tree', () => {
    const ctx = renderContext(
      <>
        <Timeline />
        <User>last word</User>
      </>,
      { timeline: [user('one')] },
    );
    expect(ctx.messages.map((m) => m.content)).toEqual(['one', 'last word']);
  });

  it('renders Sections inside a message as headings starting at level 2', () => {
    const ctx = renderContext(
      <User>
        Please fix the bug.
        <Section title="Steps">Run the tests.</Section>
      </User>,
    );
    expect(ctx.messages).toEqual([
      { role: 'user', content: 'Please fix the bug.\n\n## Steps\nRun the tests.' },
    ]);
  });

  it('rejects a Message inside System', () => {
    expect(() =>
      renderContext(
        <System>
          sys
          <User>misplaced</User>
        </System>,
      ),
    ).toThrow(InvalidElementError);
    expect(() =>
      renderContext(
        <System>
          <Section title="Deep">
            <Timeline />
          </Section>
        </System>,
      ),
    ).toThrow(/cannot be placed inside <System> or <Section>/);
  });

  it('collects a Tool or Ephemeral written inside a message instead of dropping it', () => {
    const ctx = renderContext(
      <User>
        Fix it.
        <Tool name="fix" input={noInput} execute={noop} />
        <Ephemeral>now</Ephemeral>
      </User>,
    );
    expect(ctx.messages).toEqual([{ role: 'user', content: 'Fix it.' }]);
    expect(ctx.tools.map((t) => t.name)).toEqual(['fix']);
    expect(ctx.ephemeral).toEqual([{ text: 'now' }]);
    expect(() =>
      renderContext(
        <User>
          <Assistant>nested</Assistant>
        </User>,
      ),
    ).toThrow('<Message> cannot be placed inside a message');
  });

  it('skips empty messages, as it skips empty Systems', () => {
    const task = '';
    const ctx = renderContext(
      <>
        <User>{task}</User>
        <Assistant>{null}</Assistant>
        <User>real</User>
      </>,
    );
    expect(ctx.messages).toEqual([{ role: 'user', content: 'real' }]);
  });

  it('rejects role="system" and unknown roles with a hint', () => {
    const Bad = Message as (props: { role: string; children?: ReactNode }) => ReactNode;
    expect(() => renderContext(createElement(Bad, { role: 'system' }, 'x'))).toThrow(
      /put system text in <System>/,
    );
    expect(() => renderContext(createElement(Bad, { role: 'robot' }, 'x'))).toThrow(
      InvalidElementError,
    );
  });
});

describe('Timeline last', () => {
  const timeline = [
    user('task'),
    call('1'),
    result('1'),
    call('2'),
    result('2'),
    assistant('done'),
  ];

  it('shows only the most recent messages', () => {
    const ctx = renderContext(<Timeline last={3} />, { timeline });
    expect(ctx.messages).toEqual(timeline.slice(3));
    expect(renderContext(<Timeline last={1} />, { timeline }).messages).toEqual([
      assistant('done'),
    ]);
  });

  it('never starts on an orphaned tool result', () => {
    // The last 4 would start at result('1'), whose call was cut off; the last 2 at result('2').
    const four = renderContext(<Timeline last={4} />, { timeline });
    expect(four.messages[0]?.role).not.toBe('tool');
    expect(four.messages).toEqual(timeline.slice(3));
    expect(renderContext(<Timeline last={2} />, { timeline }).messages).toEqual([
      assistant('done'),
    ]);
  });

  it('shows everything when last is larger than the timeline', () => {
    expect(renderContext(<Timeline last={100} />, { timeline }).messages).toEqual(timeline);
  });
});

describe('tailOfTimeline', () => {
  const timeline = [user('a'), call('1'), result('1'), result('1b'), assistant('b')];

  it('returns the same array when count covers it', () => {
    expect(tailOfTimeline(timeline, 5)).toBe(timeline);
    expect(tailOfTimeline(timeline, 50)).toBe(timeline);
  });

  it('moves the start forward past every leading tool message', () => {
    expect(tailOfTimeline(timeline, 3)).toEqual([assistant('b')]);
    expect(tailOfTimeline(timeline, 2)).toEqual([assistant('b')]);
    expect(tailOfTimeline(timeline, 4)).toEqual(timeline.slice(1));
  });

  it('returns nothing for zero, negative or an all-tool tail', () => {
    expect(tailOfTimeline(timeline, 0)).toEqual([]);
    expect(tailOfTimeline(timeline, -3)).toEqual([]);
    expect(tailOfTimeline([user('a'), call('1'), result('1')], 1)).toEqual([]);
  });

  it('rounds a fractional count down', () => {
    expect(tailOfTimeline([user('a'), user('b'), user('c')], 2.7)).toEqual([user('b'), user('c')]);
  });
});

describe('tools', () => {
  it('compiles a zod Tool with its description, schema and execute', () => {
    const input = z.object({ path: z.string() });
    const execute = ({ path }: { path: string }) => `read ${path}`;
    const ctx = renderContext(
      <Tool name="read_file" description="Read a file" input={input} execute={execute} />,
    );
    expect(ctx.tools).toEqual([
      {
        name: 'read_file',
        description: 'Read a file',
        inputSchema: input,
        execute,
        source: 'component',
      },
    ]);
  });

  it('takes description, schema and execute from a ready AI SDK tool()', () => {
    const inputSchema = z.object({ q: z.string() });
    const execute = async ({ q }: { q: string }) => `results for ${q}`;
    const search = tool({ description: 'Search the web', inputSchema, execute });
    const ctx = renderContext(<Tool name="search" tool={search} />);
    expect(ctx.tools).toHaveLength(1);
    expect(ctx.tools[0]).toMatchObject({
      name: 'search',
      description: 'Search the web',
      inputSchema,
      source: 'component',
    });
    expect(ctx.tools[0]?.execute).toBe(search.execute);
  });

  it('lets the Tool description override the AI SDK tool description', () => {
    const search = tool({ description: 'generic', inputSchema: jsonSchema({ type: 'object' }) });
    const ctx = renderContext(<Tool name="search" tool={search} description="specific" />);
    expect(ctx.tools[0]?.description).toBe('specific');
    expect(ctx.tools[0]?.execute).toBeUndefined();
  });

  it('collects tools placed inside System and Section without adding text', () => {
    const ctx = renderContext(
      <System>
        Intro.
        <Section title="Files">
          Use these.
          <Tool name="ls" input={noInput} execute={noop} />
        </Section>
        <Tool name="pwd" input={noInput} execute={noop} />
      </System>,
    );
    expect(ctx.tools.map((t) => t.name)).toEqual(['ls', 'pwd']);
    expect(ctx.system).toBe('Intro.\n\n## Files\nUse these.');
  });

  it('rejects two tools with the same name', () => {
    const render = () =>
      renderContext(
        <>
          <Tool name="dup" input={noInput} execute={noop} />
          <System>
            <Tool name="dup" input={noInput} execute={noop} />
          </System>
        </>,
      );
    expect(render).toThrow(DuplicateToolError);
    expect(render).toThrow('Two <Tool> elements are named "dup"');
  });

  it.each(['', 'has space', 'a.b', 'x'.repeat(65)])('rejects the tool name %j', (name) => {
    expect(() => renderContext(<Tool name={name} input={noInput} execute={noop} />)).toThrow(
      InvalidElementError,
    );
  });

  it('accepts a 64-character name with digits, _ and -', () => {
    const name = `${'a_-9'.repeat(16)}`;
    expect(renderContext(<Tool name={name} input={noInput} execute={noop} />).tools[0]?.name).toBe(
      name,
    );
  });

  it('requires an input schema', () => {
    const Loose = Tool as unknown as (props: Record<string, unknown>) => ReactNode;
    expect(() => renderContext(<Loose name="bare" execute={noop} />)).toThrow(/needs an `input`/);
  });
});

describe('invalid elements', () => {
  it('rejects DOM tags with an InvalidElementError', () => {
    const render = () =>
      renderContext(
        <System>
          <div>not a host element</div>
        </System>,
      );
    expect(render).toThrow(InvalidElementError);
    expect(render).toThrow('<div> is not an Agate host element');
  });

  it('wraps an error thrown by a component in a RenderError', () => {
    const render = () => renderContext(<Broken />);
    expect(render).toThrow(RenderError);
    expect(render).toThrow('A component threw while rendering the agent: boom');
  });
});

describe('ephemeral', () => {
  it('collects Ephemeral blocks with their source and leaves them out of system text', () => {
    const ctx = renderContext(
      <>
        <System>
          Stable.
          <Ephemeral source="clock">It is noon.</Ephemeral>
          <Section title="More">
            Also stable.
            <Ephemeral>
              Nested <Section title="Note">inside</Section>
            </Ephemeral>
          </Section>
        </System>
        <Ephemeral>top level</Ephemeral>
        <Ephemeral>{null}</Ephemeral>
      </>,
    );
    expect(ctx.system).toBe('Stable.\n\n## More\nAlso stable.');
    expect(ctx.ephemeral).toEqual([
      { text: 'It is noon.', source: 'clock' },
      { text: 'Nested\n\n## Note\ninside' },
      { text: 'top level' },
    ]);
    expect(ctx.messages).toEqual([]);
  });
});

function Broken(): ReactNode {
  throw new Error('boom');
}

/** Mounts and unmounts elements depending on the tick. */
function Rerendering() {
  const tick = useTick();
  const [mounted] = useState(tick);
  return (
    <>
      <System>Tick {tick}.</System>
      {tick === 1 ? <Tool name="first_only" input={noInput} execute={noop} /> : null}
      <Tool name="always" input={noInput} execute={noop} />
      {tick > 1 ? <User>second tick</User> : null}
      <Timeline />
      <Ephemeral>mounted at tick {mounted}</Ephemeral>
    </>
  );
}

function ResearchPhase() {
  const [mountedAt] = useState(useTick());
  return (
    <>
      <System>Research notes (mounted at tick {mountedAt}).</System>
      <User>Research first.</User>
      <Tool name="search" input={noInput} execute={noop} />
      <Ephemeral>researching</Ephemeral>
    </>
  );
}

/** Hides the research phase on tick 2 only; <Activity> keeps it mounted meanwhile. */
function Phases() {
  const tick = useTick();
  return (
    <>
      <System>Phase.</System>
      <Tool name="always" input={noInput} execute={noop} />
      <Activity mode={tick === 2 ? 'hidden' : 'visible'}>
        <ResearchPhase />
      </Activity>
      <Timeline />
    </>
  );
}

/** Changes its tool's description, its task's text and the timeline's window on tick 3. */
function ChangesOnTickThree() {
  const late = useTick() >= 3;
  return (
    <>
      <System>Steady.</System>
      <User>{late ? 'Task, revised.' : 'Task.'}</User>
      <Timeline {...(late ? { last: 2 } : {})} />
      <Tool
        name="always"
        description={late ? 'Revised.' : 'First.'}
        input={noInput}
        execute={noop}
      />
    </>
  );
}

describe('re-rendering', () => {
  it('updates the compiled output when elements mount and unmount between ticks', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'always', input: {} }] }, 'done']);
    const session = createSession(<Rerendering />, { model });
    const first = session.render();
    expect(first.system).toBe('Tick 1.');
    expect(first.tools.map((t) => t.name)).toEqual(['first_only', 'always']);
    expect(first.messages).toEqual([]);

    await session.tick();
    const second = session.render();
    expect(second.system).toBe('Tick 2.');
    expect(second.tools.map((t) => t.name)).toEqual(['always']);
    expect(second.messages[0]).toEqual({ role: 'user', content: 'second tick' });
    expect(second.messages.slice(1).map((m) => m.role)).toEqual(['assistant', 'tool']);
    // Same root: state from the first render survives.
    expect(second.ephemeral).toEqual([{ text: 'mounted at tick 1' }]);
    // The first context is a value, not a view of the live tree.
    expect(first.tools.map((t) => t.name)).toEqual(['first_only', 'always']);
    session.dispose();
  });

  it('reuses an unchanged tree between ticks, reading only the grown timeline again', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'always', input: {} }] },
      { toolCalls: [{ toolName: 'always', input: {} }] },
      'done',
    ]);
    const session = createSession(<ChangesOnTickThree />, { model });
    const first = session.render();
    await session.tick();
    const second = session.render();
    // Nothing but the timeline changed: the same tools, the messages grown by the tick's two.
    expect(second.tools).toBe(first.tools);
    expect(second.system).toBe('Steady.');
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.messages[0]).toBe(first.messages[0]);
    expect(first.messages).toHaveLength(1);

    await session.tick();
    const third = session.render();
    // A prop of a tool, a message's text and the timeline's window changed: all of it shows.
    expect(third.tools).not.toBe(second.tools);
    expect(third.tools.map((t) => t.description)).toEqual(['Revised.']);
    expect(third.messages[0]).toEqual({ role: 'user', content: 'Task, revised.' });
    expect(third.messages.slice(1).map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(third.messages.slice(1)).toEqual(session.state.timeline.slice(-2));
    session.dispose();
  });

  it('leaves out a hidden <Activity> subtree and keeps its state for when it shows again', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'always', input: {} }] },
      { toolCalls: [{ toolName: 'always', input: {} }] },
      'done',
    ]);
    const session = createSession(<Phases />, { model });
    const first = session.render();
    expect(first.system).toBe('Phase.\n\nResearch notes (mounted at tick 1).');
    expect(first.tools.map((t) => t.name)).toEqual(['always', 'search']);
    expect(first.messages).toEqual([{ role: 'user', content: 'Research first.' }]);

    await session.tick();
    const hidden = session.render();
    expect(hidden.system).toBe('Phase.');
    expect(hidden.tools.map((t) => t.name)).toEqual(['always']);
    expect(hidden.messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(hidden.ephemeral).toEqual([]);

    await session.tick();
    const shown = session.render();
    expect(shown.system).toBe('Phase.\n\nResearch notes (mounted at tick 1).');
    expect(shown.tools.map((t) => t.name)).toEqual(['always', 'search']);
    expect(shown.ephemeral).toEqual([{ text: 'researching' }]);
    session.dispose();
  });

  it('brands compiled contexts so serializers can recognize them', () => {
    const ctx = renderContext(<System>x</System>);
    expect(isCompiledContext(ctx)).toBe(true);
    expect(isCompiledContext({ ...ctx })).toBe(false);
    expect(Object.keys(ctx)).toEqual([
      'system',
      'messages',
      'tools',
      'ephemeral',
      'knobs',
      'gates',
    ]);
  });
});
