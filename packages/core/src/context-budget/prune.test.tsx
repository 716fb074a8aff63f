import { formatContext, renderContext, scriptedModel } from '@agate/testing';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CompiledContext } from '../entries/guards.js';
import {
  ContextBudgetError,
  Ephemeral,
  estimateTokens,
  gate,
  InvalidContextBudgetError,
  InvalidElementError,
  Section,
  System,
  Timeline,
  Tool,
  User,
  useGate,
  useTick,
} from '../index.js';
import { createSession } from '../runtime/session.js';
import { MESSAGE_OVERHEAD, messageText } from './tokens.js';

/** `pairs` assistant tool calls, each followed by its result; every message ~ `size` characters. */
function history(pairs: number, size = 200): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let i = 0; i < pairs; i++) {
    const id = `c${i}`;
    out.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `step ${i} `.padEnd(size, '.') },
        { type: 'tool-call', toolCallId: id, toolName: 'look', input: { i } },
      ],
    });
    out.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'look',
          output: { type: 'text', value: `seen ${i} `.padEnd(size, '.') },
        },
      ],
    });
  }
  return out;
}

const textOf = (message: ModelMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => ('text' in p ? p.text : '')).join('');

/** What providers require of a request's messages. */
function expectValidMessages(messages: readonly ModelMessage[]): void {
  expect(messages[0]?.role, 'a request starts with a user message').toBe('user');
  const calls = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant' && typeof message.content !== 'string') {
      const parts = message.content;
      for (const part of parts) if (part.type === 'tool-call') calls.add(part.toolCallId);
      if (parts.some((p) => p.type === 'reasoning')) {
        expect(
          parts.some((p) => p.type !== 'reasoning'),
          'reasoning has its answer',
        ).toBe(true);
      }
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type === 'tool-result') expect(calls.has(part.toolCallId)).toBe(true);
      }
    }
  }
}

function Agent(props: { keepLast?: number; timelinePriority?: number }) {
  return (
    <>
      <System>
        You are careful.
        <Section title="Examples" priority={1}>
          {'An example. '.repeat(40)}
        </Section>
        <Section title="Style" priority={5}>
          {'Be brief. '.repeat(40)}
        </Section>
      </System>
      <User>Inspect every item.</User>
      <Timeline
        {...(props.keepLast !== undefined ? { keepLast: props.keepLast } : {})}
        {...(props.timelinePriority !== undefined ? { priority: props.timelinePriority } : {})}
      />
    </>
  );
}

const render = (
  element: React.ReactNode,
  timeline: ModelMessage[],
  maxTokens: number,
  lowWater?: number,
) =>
  renderContext(
    element,
    { timeline },
    { context: { maxTokens, ...(lowWater ? { lowWater } : {}) } },
  );

const verify = gate({
  description: 'verify',
  instructions: `Run the tests. ${'Really. '.repeat(30)}`,
  activateWhen: () => false,
  initial: 'active',
});
function Verified() {
  return useGate('verification', verify).element;
}

let examplesPriority: number | undefined;
function ChangingPriority() {
  useTick(); // re-rendered on every render of the session
  return (
    <>
      <System>Head.</System>
      <User priority={examplesPriority}>{'An example. '.repeat(40)}</User>
      <User>Go.</User>
      <Timeline />
    </>
  );
}

describe('a context budget', () => {
  it('changes nothing when the request fits, but reports the budget use', () => {
    const timeline = history(3);
    const plain = renderContext(<Agent />, { timeline });
    const budgeted = render(<Agent />, timeline, 100_000);
    expect(plain.budget).toBeUndefined();
    expect(budgeted.messages).toEqual(plain.messages);
    expect(budgeted.system).toBe(plain.system);
    expect(budgeted.budget?.dropped).toEqual({ messages: 0, system: 0, ephemeral: 0, tokens: 0 });
    expect(budgeted.budget?.tokens).toBe(budgeted.budget?.unpruned);
    const expected =
      estimateTokens(plain.system) +
      plain.messages.reduce((sum, m) => sum + estimateTokens(messageText(m)) + MESSAGE_OVERHEAD, 0);
    expect(budgeted.budget?.tokens).toBe(expected);
  });

  it('drops the lowest priority first: the timeline (0) before a section of priority 1', () => {
    const timeline = history(20);
    const full = render(<Agent />, timeline, 100_000).budget!.tokens;
    // Just over: the oldest history goes, both sections stay.
    const small = render(<Agent />, timeline, full - 10);
    expect(small.system).toContain('## Examples');
    expect(small.budget?.dropped.messages).toBeGreaterThan(0);
    expect(small.budget!.tokens).toBeLessThanOrEqual(small.budget!.lowWater);
  });

  it('drops a section of lower priority than the timeline before any message', () => {
    const timeline = history(20);
    const full = render(<Agent timelinePriority={3} />, timeline, 100_000).budget!.tokens;
    const ctx = render(<Agent timelinePriority={3} />, timeline, full - 10, full - 100);
    expect(ctx.system).not.toContain('## Examples');
    expect(ctx.system).toContain('## Style');
    expect(ctx.system).toContain('You are careful.');
    expect(ctx.budget?.dropped).toMatchObject({ system: 1, messages: 0 });
    // Lower still: the timeline (3) goes before the Style section (5).
    const lower = render(<Agent timelinePriority={3} />, timeline, full - 600);
    expect(lower.system).toContain('## Style');
    expect(lower.budget?.dropped.messages).toBeGreaterThan(0);
  });

  it('breaks ties oldest first', () => {
    const element = (
      <>
        <System>
          Head.
          <Section title="First" priority={2}>
            {'one '.repeat(50)}
          </Section>
          <Section title="Second" priority={2}>
            {'two '.repeat(50)}
          </Section>
        </System>
        <User priority={2}>{'task '.repeat(50)}</User>
        <User>Go.</User>
      </>
    );
    const full = render(element, [], 100_000).budget!.tokens;
    const one = render(element, [], full - 5, full - 30);
    expect(one.system).not.toContain('First');
    expect(one.system).toContain('Second');
    const two = render(element, [], full - 5, full - 80);
    expect(two.system).toBe('Head.');
    expect(two.messages.map(textOf)).toEqual(['task '.repeat(50).trim(), 'Go.']);
    const three = render(element, [], full - 5, full - 140);
    expect(three.messages.map(textOf)).toEqual([
      '[1 earlier message omitted to fit the context budget]',
      'Go.',
    ]);
  });

  it('drops the oldest messages first, whole assistant turns with their tool results', () => {
    const timeline = history(30);
    for (const maxTokens of [900, 1_300, 2_000, 2_777, 3_001]) {
      const ctx = render(<Agent />, timeline, maxTokens);
      expectValidMessages(ctx.messages);
      expect(ctx.budget!.tokens).toBeLessThanOrEqual(maxTokens);
      const kept = ctx.messages.slice(2);
      // The kept history is the newest part of the timeline, in order, starting on a turn.
      expect(kept[0]?.role).toBe('assistant');
      expect(kept).toEqual(timeline.slice(timeline.length - kept.length));
    }
  });

  it('sends a valid request at every budget: turns with reasoning, several calls, user turns', () => {
    const timeline: ModelMessage[] = [];
    for (let i = 0; i < 40; i++) {
      const ids = [`a${i}`, `b${i}`];
      if (i % 5 === 0) timeline.push({ role: 'user', content: `Also check batch ${i}.` });
      timeline.push({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: `Thinking about ${i}. `.repeat(i % 3) || 'Hm.' },
          { type: 'text', text: `Batch ${i}.` },
          ...ids.map((id) => ({
            type: 'tool-call' as const,
            toolCallId: id,
            toolName: 'look',
            input: { id },
          })),
        ],
      });
      timeline.push({
        role: 'tool',
        content: ids.map((id) => ({
          type: 'tool-result' as const,
          toolCallId: id,
          toolName: 'look',
          output: { type: 'text' as const, value: `result ${id} `.repeat(1 + (i % 4)) },
        })),
      });
    }
    let fitted = 0;
    for (let maxTokens = 150; maxTokens <= 4_000; maxTokens += 97) {
      let ctx: CompiledContext;
      try {
        ctx = render(<Agent keepLast={3} />, timeline, maxTokens);
      } catch (error) {
        expect(error).toBeInstanceOf(ContextBudgetError);
        continue;
      }
      fitted += 1;
      expect(ctx.budget!.tokens).toBeLessThanOrEqual(maxTokens);
      expectValidMessages(ctx.messages);
      const kept = ctx.messages.filter((m) => !textOf(m).includes('omitted'));
      // Whole messages, the newest ones, in order; the task first.
      expect(kept.slice(1)).toEqual(timeline.slice(timeline.length - (kept.length - 1)));
    }
    expect(fitted).toBeGreaterThan(30);
  });

  it('never drops the newest keepLast messages (nor the call of a kept result)', () => {
    const timeline = history(30);
    const ctx = render(<Agent keepLast={7} />, timeline, 1_500);
    const kept = ctx.messages.slice(2);
    expect(kept.length).toBeGreaterThanOrEqual(8);
    expect(kept).toEqual(timeline.slice(-kept.length));
    expectValidMessages(ctx.messages);
    expect(() => render(<Agent keepLast={7} />, timeline, 300)).toThrow(ContextBudgetError);
  });

  it('says where messages were dropped with one marker message, stable while the cut is', () => {
    const timeline = history(30);
    const ctx = render(<Agent />, timeline, 2_000);
    const dropped = ctx.budget!.dropped.messages;
    expect(dropped).toBeGreaterThan(0);
    expect(dropped % 2).toBe(0);
    expect(ctx.messages[0]).toEqual({ role: 'user', content: 'Inspect every item.' });
    expect(ctx.messages[1]).toEqual({
      role: 'user',
      content: `[${dropped} earlier messages omitted (turns 1–${dropped / 2}) to fit the context budget]`,
    });
    expect(ctx.messages.filter((m) => textOf(m).includes('omitted'))).toHaveLength(1);
  });

  it('never drops system text without a priority, guard content or unprioritized ephemeral blocks', () => {
    const element = (
      <>
        <System>{'Rules. '.repeat(40)}</System>
        <User>Go.</User>
        <Timeline />
        <Verified />
        <Ephemeral source="status">{'status '.repeat(30)}</Ephemeral>
        <Ephemeral source="tip" priority={-1}>
          {'tip '.repeat(30)}
        </Ephemeral>
        <Tool name="look" input={z.object({})} execute={() => 'ok'} />
      </>
    );
    const timeline = history(20);
    const full = render(element, timeline, 100_000).budget!.tokens;
    const ctx = render(element, timeline, Math.floor(full / 3));
    expect(ctx.system).toBe(`${'Rules. '.repeat(40)}`.trim());
    expect(ctx.ephemeral.map((b) => b.source)).toEqual(['gate:verification', 'status']);
    expect(ctx.tools.map((t) => t.name)).toEqual(['look', 'set_knob']);
    expect(ctx.budget?.dropped.ephemeral).toBe(1);
  });

  it('fails with a clear error when what may not be dropped is over the budget', () => {
    const element = (
      <>
        <System>{'Rules. '.repeat(100)}</System>
        <User>Go.</User>
        <Timeline />
        <Ephemeral source="gate:verification">{'Verify. '.repeat(50)}</Ephemeral>
      </>
    );
    let error: unknown;
    try {
      render(element, history(5), 200);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContextBudgetError);
    const budgetError = error as ContextBudgetError;
    expect(budgetError.maxTokens).toBe(200);
    expect(budgetError.tokens).toBeGreaterThan(200);
    expect(budgetError.message).toContain('maxTokens 200');
    expect(budgetError.message).toMatch(/system text without a priority \d+/);
    expect(budgetError.message).toMatch(/ephemeral \[gate:verification\] \d+/);
    expect(budgetError.message).toContain('maxTokens: ');
    expect(budgetError.holdings.map((h) => h.what)).toContain('ephemeral [gate:verification]');
  });

  it('counts tool schemas and the system text', () => {
    const withTool = (
      <>
        <System>Hi.</System>
        <User>Go.</User>
        <Tool
          name="write_file"
          description="Write a file."
          input={z.object({ path: z.string(), content: z.string() })}
          execute={() => 'ok'}
        />
      </>
    );
    const ctx = render(withTool, [], 10_000);
    const schema = JSON.stringify(
      z.toJSONSchema(z.object({ path: z.string(), content: z.string() })),
    );
    expect(ctx.budget!.tools[0]).toBeGreaterThanOrEqual(estimateTokens(schema));
    expect(ctx.budget!.system).toBe(estimateTokens('Hi.'));
    expect(ctx.budget!.tokens).toBe(
      ctx.budget!.system + ctx.budget!.tools[0]! + estimateTokens('Go.') + MESSAGE_OVERHEAD,
    );
  });

  it('keeps its cut between renders, but never keeps dropping what lost its priority', () => {
    const element = <ChangingPriority />;
    const session = createSession(element, {
      model: scriptedModel([]),
      state: { timeline: history(30) },
      context: { maxTokens: 2_500, lowWater: 1_000 },
    });
    examplesPriority = -1;
    const first = session.render();
    expect(first.budget?.recut).toBe(true);
    expect(first.messages.map(textOf).join()).not.toContain('An example.');
    const again = session.render();
    expect(again.budget?.recut).toBe(false);
    expect(again.messages).toEqual(first.messages);
    examplesPriority = undefined;
    const after = session.render();
    expect(after.budget?.recut).toBe(false);
    expect(textOf(after.messages[0]!)).toContain('An example.');
    expect(after.messages.slice(1)).toEqual(first.messages.slice(1));
    session.dispose();
  });

  it('rejects a bad budget or priority with a clear error', () => {
    const model = scriptedModel([]);
    expect(() => createSession(<User>x</User>, { model, context: { maxTokens: 0 } })).toThrow(
      InvalidContextBudgetError,
    );
    expect(() =>
      createSession(<User>x</User>, { model, context: { maxTokens: 100, lowWater: 200 } }),
    ).toThrow(/lowWater/);
    expect(() => render(<User priority={Number.NaN}>x</User>, [], 100)).toThrow(
      InvalidElementError,
    );
    expect(() => render(<Timeline keepLast={-1} />, [], 100)).toThrow(/keepLast/);
  });

  it('shows the budget use per element in formatContext', () => {
    const element = (
      <>
        <System>
          You are careful.
          <Section title="Examples" priority={1}>
            {'An example. '.repeat(10)}
          </Section>
        </System>
        <User>Inspect every item.</User>
        <Timeline />
        <Ephemeral source="clock">Tick 9.</Ephemeral>
      </>
    );
    const ctx: CompiledContext = render(element, history(6, 40), 200);
    expect(formatContext(ctx)).toMatchSnapshot();
  });
});
