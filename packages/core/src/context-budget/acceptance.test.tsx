// Acceptance scenarios for issue 15 (context budgets), one per rule of the issue, written
// from the words and docs/context-budget.md, on scripted models and renderContext.
import { formatContext, renderContext, type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CompiledContext } from '../entries/guards.js';
import {
  type AgateEvent,
  Assistant,
  Checkpoint,
  ContextBudgetError,
  type ContextBudgetOptions,
  createMemoryStore,
  createSession,
  Ephemeral,
  Gate,
  Message,
  run,
  Section,
  System,
  Timeline,
  Todos,
  Tool,
  User,
  useTick,
} from '../index.js';

/** One token per character: sizes in these tests are easy to reason about. */
const chars = (text: string) => text.length;

const text = (context: CompiledContext) =>
  JSON.stringify({
    system: context.system,
    messages: context.messages,
    ephemeral: context.ephemeral,
  });

/** A history of n user/assistant pairs, each message `size` characters, numbered. */
function history(pairs: number, size = 100): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let i = 0; i < pairs; i++) {
    out.push({ role: 'user', content: `U${i}:`.padEnd(size, 'u') });
    out.push({ role: 'assistant', content: `A${i}:`.padEnd(size, 'a') });
  }
  return out;
}

/** The size of `element` with nothing dropped, under the `chars` tokenizer. */
function unpruned(element: ReactNode, timeline: ModelMessage[] = []): number {
  const context = renderContext(
    element,
    { timeline },
    { context: { maxTokens: 10_000_000, tokenizer: chars } },
  );
  return context.budget?.unpruned ?? Number.NaN;
}

/** Rendered with a budget that forces dropping `over` tokens, cut exactly at the budget. */
function squeezed(
  element: ReactNode,
  over: number,
  timeline: ModelMessage[] = [],
): CompiledContext {
  const maxTokens = unpruned(element, timeline) - over;
  return renderContext(
    element,
    { timeline },
    { context: { maxTokens, lowWater: maxTokens, tokenizer: chars } },
  );
}

/** What providers accept: a user message first, results after their calls, reasoning with an answer. */
function expectValid(prompt: LanguageModelV4Prompt): void {
  const rest = prompt.filter((m) => m.role !== 'system');
  expect(rest[0]?.role).toBe('user');
  const called = new Set<string>();
  for (const message of rest) {
    if (message.role === 'assistant') {
      const parts = typeof message.content === 'string' ? [] : message.content;
      for (const part of parts) if (part.type === 'tool-call') called.add(part.toolCallId);
      if (parts.some((p) => p.type === 'reasoning')) {
        expect(parts.some((p) => p.type === 'text' || p.type === 'tool-call')).toBe(true);
      }
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type === 'tool-result') expect(called.has(part.toolCallId)).toBe(true);
      }
    }
  }
}

function Heavy() {
  return (
    <Worker>
      <System>{'Never drop this. '.repeat(60)}</System>
    </Worker>
  );
}

function Clock() {
  return <Ephemeral source="clock">{`Tick ${useTick()}.`}</Ephemeral>;
}

// ---- 1. a budget -----------------------------------------------------------------------------

function Worker(props: { children?: ReactNode }) {
  return (
    <>
      <System>You inspect items.</System>
      <User>Inspect every item.</User>
      <Timeline />
      <Tool
        name="inspect"
        description="Inspect one item."
        input={z.object({ item: z.number() })}
        execute={({ item }) => `Item ${item}: ${'fine. '.repeat(20)}`}
      />
      {props.children}
    </>
  );
}

/** n ticks that each call `inspect` (with reasoning), then a final answer. */
function inspecting(n: number): ScriptedTurn[] {
  return [
    ({ index }) =>
      index < n
        ? {
            reasoning: `Thinking about item ${index}.`,
            text: `Item ${index} next.`,
            toolCalls: [{ toolName: 'inspect', input: { item: index } }],
          }
        : 'All inspected.',
  ];
}

function started(n: number, element: ReactNode, context?: ContextBudgetOptions) {
  const model = scriptedModel(inspecting(n), { whenExhausted: 'repeat-last' });
  const events: AgateEvent[] = [];
  const session = createSession(element, {
    model,
    maxTicks: n + 5,
    onEvent: (e) => events.push(e),
    ...(context ? { context } : {}),
  });
  return { model, events, session };
}

const promptSize = (prompt: LanguageModelV4Prompt) => JSON.stringify(prompt).length;

describe('issue 15 (1): context: { maxTokens, tokenizer } on createSession and on run()', () => {
  it('createSession: the tokenizer is used and every request stays within maxTokens', async () => {
    const seen: string[] = [];
    const tokenizer = (t: string) => {
      seen.push(t);
      return t.length;
    };
    const { model, events, session } = started(40, <Worker />, { maxTokens: 3_000, tokenizer });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const pruned = events.flatMap((e) => (e.type === 'context:pruned' ? [e] : []));
    expect(pruned.length).toBeGreaterThan(0);
    for (const e of pruned) {
      expect(e.maxTokens).toBe(3_000);
      expect(e.tokensBefore).toBeGreaterThan(3_000);
      expect(e.tokensAfter).toBeLessThanOrEqual(3_000);
    }
    expect(seen.length).toBeGreaterThan(0);
    // Unpruned, the last request would be far larger than what was sent.
    const unprunedRun = started(40, <Worker />);
    await unprunedRun.session.run();
    expect(promptSize(model.calls.at(-1)?.prompt ?? [])).toBeLessThan(
      promptSize(unprunedRun.model.calls.at(-1)?.prompt ?? []) / 2,
    );
  });

  it('the standalone run(element, { model, context }) takes the same option', async () => {
    const events: AgateEvent[] = [];
    const model = scriptedModel(inspecting(30), { whenExhausted: 'repeat-last' });
    const result = await run(<Worker />, {
      model,
      maxTicks: 40,
      onEvent: (e) => events.push(e),
      context: { maxTokens: 2_500, tokenizer: chars },
    });
    expect(result.status).toBe('completed');
    const pruned = events.flatMap((e) => (e.type === 'context:pruned' ? [e] : []));
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned.every((e) => e.tokensAfter <= 2_500)).toBe(true);
  });

  it('run({ context }) gives a session without a budget one for that run', async () => {
    const { events, session } = started(30, <Worker />);
    await session.run({ context: { maxTokens: 2_500, tokenizer: chars } });
    const pruned = events.flatMap((e) => (e.type === 'context:pruned' ? [e] : []));
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned.every((e) => e.maxTokens === 2_500 && e.tokensAfter <= 2_500)).toBe(true);
  });

  it('run({ context }) applies that budget to that run', async () => {
    const { events, session } = started(30, <Worker />, { maxTokens: 1_000_000, tokenizer: chars });
    await session.run({ context: { maxTokens: 2_500, tokenizer: chars } });
    const pruned = events.flatMap((e) => (e.type === 'context:pruned' ? [e] : []));
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned.every((e) => e.maxTokens === 2_500 && e.tokensAfter <= 2_500)).toBe(true);
  });
});

describe('issue 15 (1): the system text and tool schemas count toward the budget', () => {
  const timeline = history(20);
  const bigTool = (
    <Tool
      name="lookup"
      description={'Look things up. '.repeat(40)}
      input={z.object({ query: z.string().describe('x'.repeat(300)) })}
      execute={() => 'ok'}
    />
  );
  it('a tool with a long description and schema leaves room for fewer messages', () => {
    const maxTokens = 3_000;
    const budget = { maxTokens, lowWater: maxTokens, tokenizer: chars };
    const without = renderContext(<Worker />, { timeline }, { context: budget });
    const withTool = renderContext(<Worker>{bigTool}</Worker>, { timeline }, { context: budget });
    expect(withTool.budget?.dropped.messages ?? 0).toBeGreaterThan(
      without.budget?.dropped.messages ?? 0,
    );
    expect(withTool.budget?.tokens).toBeLessThanOrEqual(maxTokens);
    const lookup = withTool.tools.findIndex((t) => t.name === 'lookup');
    // The tool counts at least its description and the schema's description text.
    expect(withTool.budget?.tools[lookup]).toBeGreaterThan(640 + 300);
  });

  it('a long system text leaves room for fewer messages', () => {
    const budget = { maxTokens: 3_000, lowWater: 3_000, tokenizer: chars };
    const short = renderContext(<Worker />, { timeline }, { context: budget });
    const long = renderContext(
      <Worker>
        <System>{'Be careful. '.repeat(80)}</System>
      </Worker>,
      { timeline },
      { context: budget },
    );
    expect(long.budget?.system).toBeGreaterThan(960);
    expect(long.budget?.dropped.messages ?? 0).toBeGreaterThan(short.budget?.dropped.messages ?? 0);
  });
});

// ---- 2. priorities -------------------------------------------------------------------------------

const block = (tag: string) => `${tag}:`.padEnd(300, '.');

describe('issue 15 (2): priority on every listed component; lowest first', () => {
  const tree = (
    <>
      <System>
        Base.
        <Section title="S" priority={4}>
          {block('SECTION')}
        </Section>
      </System>
      <System priority={5}>{block('SYSTEM')}</System>
      <User>Task.</User>
      {/* biome-ignore lint/a11y/useValidAriaRole: a chat role, not an ARIA role */}
      <Message role="user" priority={2}>
        {block('MESSAGE')}
      </Message>
      <User priority={3}>{block('USER')}</User>
      <Assistant priority={6}>{block('ASSISTANT')}</Assistant>
      <Timeline priority={7} />
      <Ephemeral source="note" priority={1}>
        {block('EPHEMERAL')}
      </Ephemeral>
    </>
  );
  const timeline = history(2, 300);
  const order = ['EPHEMERAL', 'MESSAGE', 'USER', 'SECTION', 'SYSTEM', 'ASSISTANT', 'U0:'];
  for (let drop = 1; drop <= order.length; drop++) {
    it(`over by ${drop} element(s): ${order.slice(0, drop).join(', ')} dropped, the rest kept`, () => {
      const context = squeezed(tree, 300 * (drop - 1) + 1, timeline);
      const sent = text(context);
      for (const tag of order.slice(0, drop)) expect(sent).not.toContain(`${tag}`.padEnd(10, ':'));
      for (const tag of order.slice(drop)) expect(sent).toContain(tag);
      expect(sent).toContain('Base.');
      expect(sent).toContain('Task.');
    });
  }
});

describe('issue 15 (2): ties go oldest first; whole elements only', () => {
  it('two messages of the same priority: the older one goes', () => {
    const context = squeezed(
      <>
        <System>Base.</System>
        <User priority={1}>{block('FIRST')}</User>
        <User priority={1}>{block('SECOND')}</User>
      </>,
      1,
    );
    const sent = text(context);
    expect(sent).not.toContain('FIRST');
    expect(sent).toContain(block('SECOND'));
  });

  it('the timeline gives up its oldest messages first, and never cuts one in the middle', () => {
    const timeline = history(10);
    const context = squeezed(<Worker />, 350, timeline);
    const sent = text(context);
    expect(sent).not.toContain('U0:');
    expect(sent).not.toContain('A1:');
    expect(sent).toContain(timeline.at(-1)?.content as string);
    for (const m of timeline) {
      const body = m.content as string;
      if (sent.includes(body.slice(0, 4))) expect(sent).toContain(body);
    }
  });

  it('<Timeline keepLast={n}> never drops the newest n messages', () => {
    const timeline = history(10);
    const tree = (
      <>
        <System>Base.</System>
        <User>Task.</User>
        <Timeline keepLast={6} />
      </>
    );
    const maxTokens = unpruned(tree, timeline) - 100 * 20; // room for no history at all
    const context = renderContext(
      tree,
      { timeline },
      { context: { maxTokens: maxTokens + 700, tokenizer: chars } },
    );
    const sent = text(context);
    for (const m of timeline.slice(-6)) expect(sent).toContain(m.content as string);
    expect(sent).not.toContain('U0:');
  });
});

// ---- 3. never dropped ----------------------------------------------------------------------------

function GuardedAgent() {
  return (
    <Worker>
      <System>
        <Section title="Rules">RULES-WITHOUT-PRIORITY</Section>
      </System>
      <Gate
        name="verification"
        description="Verify"
        instructions="GATE-INSTRUCTIONS: verify before finishing."
        activateWhen={(tick) => tick.toolCalls.some((c) => c.toolName === 'inspect')}
      />
      <Checkpoint id="T-1" task="CHECKPOINT-TASK inspect all" budget={100} />
      <Todos />
      <Ephemeral source="low" priority={-5}>
        {block('LOW-EPHEMERAL')}
      </Ephemeral>
    </Worker>
  );
}

describe('issue 15 (3): what is never dropped', () => {
  it('engaged gate instructions, the open checkpoint, guard-rendered todos, <System>/<Section> without priority', async () => {
    const { model, events, session } = started(30, <GuardedAgent />, {
      maxTokens: 8_000,
      tokenizer: chars,
    });
    const result = await session.run({ maxTicks: 30 });
    expect(result.status).toBe('blocked');
    expect(model.calls).toHaveLength(30);
    expect(events.some((e) => e.type === 'context:pruned')).toBe(true);
    const last = JSON.stringify(model.calls.at(-1)?.prompt);
    expect(last).not.toContain('LOW-EPHEMERAL');
    expect(last).toContain('GATE-INSTRUCTIONS');
    expect(last).toContain('CHECKPOINT-TASK');
    expect(last).toContain('Todo list');
    expect(last).toContain('RULES-WITHOUT-PRIORITY');
    expect(last).toContain('You inspect items.');
  });

  it('an open checkpoint keeps its instructions', () => {
    const tree = (
      <Worker>
        <Checkpoint id="T-1" task="CHECKPOINT-TASK review" />
        <User priority={-1}>{block('DROPPABLE')}</User>
      </Worker>
    );
    const open = squeezed(tree, 10, history(5));
    expect(text(open)).toContain('CHECKPOINT-TASK');
    expect(text(open)).not.toContain('DROPPABLE');
  });

  it('a pending checkpoint keeps its instructions', async () => {
    const tree = (
      <Worker>
        <Checkpoint id="T-1" task="CHECKPOINT-TASK review" />
        <Ephemeral source="low" priority={-1}>
          {block('DROPPABLE')}
        </Ephemeral>
      </Worker>
    );
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'done it' } }] },
    ]);
    const session = createSession(tree, {
      model,
      store: createMemoryStore(),
      state: { timeline: history(5) },
    });
    await session.run();
    expect(session.state.guards.checkpoints.records['T-1']?.state).toBe('pending');
    const full = session.render();
    const pendingText = full.ephemeral.find((e) => e.source?.startsWith('checkpoint'))?.text ?? '';
    expect(pendingText).toMatch(/T-1/);
    const sized = renderContext(tree, JSON.parse(JSON.stringify(session.state)), {
      context: { maxTokens: 10_000_000, tokenizer: chars },
    });
    const maxTokens = (sized.budget?.unpruned ?? 0) - 10;
    const squeezedPending = renderContext(tree, JSON.parse(JSON.stringify(session.state)), {
      context: { maxTokens, lowWater: maxTokens, tokenizer: chars },
    });
    expect(text(squeezedPending)).toContain(JSON.stringify(pendingText).slice(1, -1));
    expect(text(squeezedPending)).not.toContain('DROPPABLE');
  });
});

describe('issue 15 (2): ties across kinds go in request order', () => {
  it('a <Section> in the system text goes before a message of the same priority, a message before an ephemeral block', () => {
    const tree = (
      <>
        <System>
          Base.
          <Section title="S" priority={1}>
            {block('SECTION')}
          </Section>
        </System>
        <User>Task.</User>
        <User priority={1}>{block('USERMSG')}</User>
        <Ephemeral source="e" priority={1}>
          {block('EPHEMERAL')}
        </Ephemeral>
      </>
    );
    const one = text(squeezed(tree, 1));
    expect(one).not.toContain('SECTION');
    expect(one).toContain('USERMSG');
    expect(one).toContain('EPHEMERAL');
    const two = text(squeezed(tree, 400));
    expect(two).not.toContain('USERMSG');
    expect(two).toContain('EPHEMERAL');
  });
});

describe('issue 15 (3): over budget with only undroppable content', () => {
  it('a budget that holds exactly what may not be dropped is enough; one token less is the error', () => {
    const tree = (
      <>
        <System>{'S'.repeat(500)}</System>
        <User>Task.</User>
        <Timeline />
        <Ephemeral source="note" priority={1}>
          {block('EPHEMERAL')}
        </Ephemeral>
      </>
    );
    // What may not be dropped: the system text and the task message (its text and framing).
    const floor = 500 + (unpruned(<User>Task.</User>) - 0);
    const fits = renderContext(
      tree,
      { timeline: [] },
      { context: { maxTokens: floor, tokenizer: chars } },
    );
    expect(text(fits)).not.toContain('EPHEMERAL');
    expect(fits.budget?.tokens).toBe(floor);
    let error: unknown;
    try {
      renderContext(
        tree,
        { timeline: [] },
        { context: { maxTokens: floor - 1, tokenizer: chars } },
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContextBudgetError);
    const message = (error as Error).message;
    expect(message).toContain(`smaller than what may not be dropped: ${floor} tokens`);
    // Nothing but an ephemeral block could be dropped: no marker message is ever written.
    expect(message).not.toContain('marker');
  });

  it('the run ends error naming the budget, what it holds and its size; state intact; resumable', async () => {
    const model = scriptedModel(inspecting(3), { whenExhausted: 'repeat-last' });
    const session = createSession(<Heavy />, {
      model,
      context: { maxTokens: 20_000, tokenizer: chars },
    });
    // First run: fine, with a large budget.
    expect((await session.run({ maxTicks: 2 })).status).toBe('max-ticks');
    const before = JSON.stringify(session.state);
    const calls = model.calls.length;
    const failed = await session.run({ context: { maxTokens: 500, tokenizer: chars } });
    expect(failed.status).toBe('error');
    expect(failed.error).toBeInstanceOf(ContextBudgetError);
    // Located like every run error: the tick, and the step (compiling the context is render).
    expect(failed.reason).toMatch(/^Tick 3, render: /);
    const message = failed.error?.message ?? '';
    expect(message).toContain('500'); // the budget
    expect(message).toMatch(/system text/); // what it holds
    const size = Number(
      /than what may not be dropped: ([\d,]+) tokens/.exec(message)?.[1]?.replace(/,/g, ''),
    );
    expect(size).toBeGreaterThan(960);
    expect(model.calls.length).toBe(calls); // nothing sent
    const after = JSON.parse(JSON.stringify(session.state)) as {
      status?: unknown;
      timeline: unknown;
    };
    expect(after.timeline).toEqual(JSON.parse(before).timeline);
    // Resumed from a snapshot with a larger budget, it finishes.
    const resumed = createSession(<Heavy />, {
      model,
      snapshot: session.snapshot(),
      context: { maxTokens: 20_000, tokenizer: chars },
    });
    expect((await resumed.run()).status).toBe('completed');
    // And the same session object resumes too.
    expect((await session.run({ context: { maxTokens: 20_000, tokenizer: chars } })).status).toBe(
      'completed',
    );
  });
});

// ---- 4./5. valid requests, the marker, the event, formatContext -------------------------------------

describe('issue 15 (4, 5): a long run stays within budget, every request valid, with a marker', () => {
  it('tool results never without their call, reasoning never alone, a user message first', async () => {
    const { model, events, session } = started(80, <Worker />, {
      maxTokens: 2_500,
      tokenizer: chars,
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    for (const call of model.calls) expectValid(call.prompt);
    const pruned = events.flatMap((e) => (e.type === 'context:pruned' ? [e] : []));
    expect(pruned.length).toBeGreaterThan(10);
    // The marker says how many messages were left out, matching the event's count.
    const last = model.calls.at(-1)?.prompt ?? [];
    const marker = JSON.stringify(last).match(/\[(\d+) earlier messages omitted/);
    expect(marker).not.toBeNull();
    expect(Number(marker?.[1])).toBe(pruned.at(-1)?.droppedMessages);
    const lastEvent = pruned.at(-1);
    expect(lastEvent?.tokensBefore).toBeGreaterThan(
      lastEvent?.tokensAfter ?? Number.POSITIVE_INFINITY,
    );
  });

  it('dropping the first user message never leaves the request starting with an assistant message', () => {
    const tree = (
      <>
        <System>Base.</System>
        <User priority={1}>{block('TASK')}</User>
        <Assistant priority={5}>Understood, starting.</Assistant>
        <Timeline priority={9} />
      </>
    );
    const context = squeezed(tree, 10);
    expect(text(context)).not.toContain('TASK');
    expect(context.messages[0]?.role).toBe('user');
    expect(String(context.messages[0]?.content)).toMatch(/\[1 earlier message omitted/);
  });

  it('with a <Timeline keepLast> that starts at a tool result, its call is kept', () => {
    const timeline: ModelMessage[] = [
      { role: 'user', content: 'x'.repeat(500) },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'inspect', input: { item: 1 } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'inspect',
            output: { type: 'text', value: 'ok' },
          },
        ],
      },
      { role: 'assistant', content: 'done' },
    ];
    const tree = (
      <>
        <System>Base.</System>
        <Timeline keepLast={2} />
      </>
    );
    const context = squeezed(tree, 100, timeline);
    const sent = text(context);
    expect(sent).toContain('"toolCallId":"c1","toolName":"inspect","input"');
    expect(sent).not.toContain('x'.repeat(500));
    expect(context.messages[0]?.role).toBe('user');
  });
});

describe('issue 15 (5): formatContext shows the budget use', () => {
  it('per element, with the budget and what was dropped', () => {
    const context = renderContext(
      <Worker />,
      { timeline: history(30) },
      { context: { maxTokens: 2_000, tokenizer: chars } },
    );
    const out = formatContext(context);
    expect(out).toMatch(/budget: [\d,]+ of 2,000 tokens/);
    expect(out).toMatch(/system: \d+/);
    expect(out).toMatch(/tool inspect: \d+/);
    expect(out).toMatch(/dropped: \d+ messages/);
  });
});

// ---- 6. the low-water mark ----------------------------------------------------------------------------

describe('issue 15 (6): the low-water mark keeps the prefix cached', () => {
  it('over 500 ticks that force pruning, >= 90% of requests share the previous prefix byte for byte', async () => {
    const ticks = 500;
    const { model, events, session } = started(
      ticks,
      <Worker>
        <Clock />
      </Worker>,
      { maxTokens: 6_000 },
    );
    const result = await session.run({ maxTicks: ticks + 5 });
    expect(result.status).toBe('completed');
    expect(model.calls.length).toBe(ticks + 1);
    const recuts = events.filter((e) => e.type === 'context:pruned' && e.recut).length;
    expect(recuts).toBeGreaterThan(5); // the budget really forces pruning, again and again
    // Each new cut goes down to the low-water mark (default 75% of maxTokens).
    for (const e of events) {
      if (e.type === 'context:pruned' && e.recut) expect(e.tokensAfter).toBeLessThanOrEqual(4_500);
    }
    let shared = 0;
    for (let i = 1; i < model.calls.length; i++) {
      const previous = model.calls[i - 1]?.prompt ?? [];
      const current = model.calls[i]?.prompt ?? [];
      // The previous request without its ephemeral (last) message, as bytes.
      const prefix = JSON.stringify(previous.slice(0, -1)).slice(0, -1);
      if (JSON.stringify(current).startsWith(prefix)) shared++;
      expectValid(current);
    }
    expect(shared / (model.calls.length - 1)).toBeGreaterThanOrEqual(0.9);
  }, 30_000);
});
