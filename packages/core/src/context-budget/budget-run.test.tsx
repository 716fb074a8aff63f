import { scriptedModel } from '@agate/testing';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { countTokens } from 'gpt-tokenizer';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CompiledContext } from '../entries/guards.js';
import {
  type AgateEvent,
  ContextBudgetError,
  Ephemeral,
  Section,
  System,
  Timeline,
  Tool,
  User,
  useTick,
} from '../index.js';
import { createSession, type Session } from '../runtime/session.js';

function Clock() {
  return <Ephemeral source="clock">{`Tick ${useTick()}.`}</Ephemeral>;
}

function LongAgent() {
  return (
    <>
      <System>
        You inspect items one at a time.
        <Section title="Examples" priority={1}>
          {'Example: inspect item 1, then item 2. '.repeat(10)}
        </Section>
      </System>
      <User>Inspect every item on the list.</User>
      <Timeline />
      <Clock />
      <Tool
        name="inspect"
        description="Inspect one item."
        input={z.object({ item: z.number() })}
        execute={({ item }) => `Item ${item} looks fine. ${'Detail. '.repeat(8)}`}
      />
    </>
  );
}

/** Every turn calls `inspect`; the last one finishes. */
function inspectTurns(ticks: number, check?: (index: number, session: Session) => void) {
  let session: Session | undefined;
  const model = scriptedModel(
    [
      ({ index }) => {
        if (session !== undefined) check?.(index, session);
        return index < ticks - 1
          ? {
              text: `Inspecting item ${index}.`,
              toolCalls: [{ toolName: 'inspect', input: { item: index } }],
            }
          : 'All items inspected.';
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
  return {
    model,
    attach: (s: Session) => {
      session = s;
    },
  };
}

/** The prompt without this tick's ephemeral message (the last user message). */
function stablePart(prompt: LanguageModelV4Prompt): LanguageModelV4Prompt {
  return prompt.at(-1)?.role === 'user' ? prompt.slice(0, -1) : prompt;
}

/** What providers require: a user message first, every tool result after its call. */
function expectValidPrompt(prompt: LanguageModelV4Prompt): void {
  const messages = prompt.filter((m) => m.role !== 'system');
  expect(messages[0]?.role).toBe('user');
  const calls = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') calls.add(part.toolCallId);
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type === 'tool-result') expect(calls.has(part.toolCallId)).toBe(true);
      }
    }
  }
}

describe('a long session within a context budget', () => {
  const TICKS = 500;
  const MAX_TOKENS = 6_000;

  it('stays within budget on every request, sends only valid requests, and keeps the prefix cached', async () => {
    const contexts: CompiledContext[] = [];
    const { model, attach } = inspectTurns(TICKS, (_, session) => {
      contexts.push(session.context as CompiledContext);
    });
    const events: AgateEvent[] = [];
    let tokenizerCalls = 0;
    const session = createSession(<LongAgent />, {
      model,
      maxTicks: TICKS,
      // The session trims its own history too: markers must stay stable across that.
      maxTimelineMessages: 400,
      context: {
        maxTokens: MAX_TOKENS,
        tokenizer: (text) => {
          tokenizerCalls += 1;
          return Math.ceil(text.length / 4);
        },
      },
      onEvent: (event) => {
        if (event.type === 'context:pruned') events.push(event);
      },
    });
    attach(session);
    const result = await session.run();
    session.dispose();
    expect(result.status).toBe('completed');
    expect(model.calls).toHaveLength(TICKS);

    // Within budget, and really pruned (the history is far larger than the budget).
    for (const context of contexts) {
      expect(context.budget!.tokens).toBeLessThanOrEqual(MAX_TOKENS);
    }
    const last = contexts.at(-1)!.budget!;
    expect(last.unpruned).toBeGreaterThan(MAX_TOKENS);
    expect(last.dropped.messages).toBeGreaterThan(100);
    // Only the section of priority 1 above the timeline's 0 survives... until it is needed.
    expect(contexts.at(-1)!.system).toContain('## Examples');

    for (const call of model.calls) expectValidPrompt(call.prompt);

    // The cache-prefix property: request i+1 starts with request i minus its ephemeral message.
    let shared = 0;
    for (let i = 1; i < model.calls.length; i++) {
      const previous = JSON.stringify(stablePart(model.calls[i - 1]!.prompt));
      const current = JSON.stringify(model.calls[i]!.prompt);
      if (current.startsWith(previous.slice(0, -1))) shared += 1;
    }
    expect(shared / (model.calls.length - 1)).toBeGreaterThanOrEqual(0.9);

    // context:pruned on every pruned tick; the cut moved only on a few of them.
    expect(events.length).toBeGreaterThan(TICKS / 2);
    const recuts = events.filter((e) => e.type === 'context:pruned' && e.recut).length;
    expect(recuts).toBeGreaterThan(5);
    expect(recuts).toBeLessThan(TICKS / 10);
    const first = events[0];
    expect(first).toMatchObject({ type: 'context:pruned', maxTokens: MAX_TOKENS, recut: true });
    if (first?.type === 'context:pruned') {
      expect(first.tokensBefore).toBeGreaterThan(MAX_TOKENS);
      expect(first.tokensAfter).toBeLessThanOrEqual(Math.floor(MAX_TOKENS * 0.75));
    }

    // Counted incrementally: a few texts per tick (the new turn, its result, the clock,
    // a marker when the cut moves), never the whole history again.
    expect(tokenizerCalls).toBeLessThan(TICKS * 6);
  }, 60_000);

  it('cuts to the low-water mark, then keeps that cut (prefix and marker) until maxTokens is reached', async () => {
    const { model, attach } = inspectTurns(100);
    const session = createSession(<LongAgent />, {
      model,
      context: { maxTokens: 1_500, lowWater: 1_000 },
    });
    attach(session);
    const contexts: CompiledContext[] = [];
    for (let i = 0; i < 60; i++) {
      const outcome = await session.tick();
      expect(outcome.done).toBe(false);
      contexts.push(session.context as CompiledContext);
    }
    session.dispose();
    const recuts = contexts.flatMap((c, i) => (c.budget?.recut ? [i] : []));
    expect(recuts.length).toBeGreaterThanOrEqual(2);
    for (const i of recuts) {
      const { budget } = contexts[i]!;
      // Cut to the low-water mark (the section of priority 1 is kept: the history goes first).
      expect(budget!.tokens).toBeLessThanOrEqual(1_000);
      expect(budget!.tokens).toBeGreaterThan(900);
      expect(contexts[i]!.system).toContain('## Examples');
      // The request before it had grown back to the budget: it was full, not cut early.
      expect(contexts[i - 1]!.budget!.tokens).toBeGreaterThan(1_500 - 120);
    }
    // Between two cuts every request keeps the same marker and the same first kept message.
    for (let i = recuts[0]! + 1; i < recuts[1]!; i++) {
      expect(contexts[i]!.messages[1]).toEqual(contexts[recuts[0]!]!.messages[1]);
      expect(contexts[i]!.messages[2]).toBe(contexts[recuts[0]!]!.messages[2]);
      expect(contexts[i]!.budget!.tokens).toBeLessThanOrEqual(1_500);
      expect(contexts[i]!.budget!.recut).toBe(false);
    }
  });

  it('counts with gpt-tokenizer (o200k and cl100k)', () => {
    for (const tokenizer of [countTokens, countCl100k]) {
      const timeline: ModelMessage[] = [];
      for (let i = 0; i < 60; i++) {
        timeline.push({
          role: 'assistant',
          content: [{ type: 'text', text: `Réponse numéro ${i}: ${'données '.repeat(20)}` }],
        });
        timeline.push({ role: 'user', content: `Question ${i}?` });
      }
      const session = createSession(<LongAgent />, {
        model: scriptedModel([]),
        state: { timeline },
        context: { maxTokens: 1_500, tokenizer },
      });
      const context = session.render();
      session.dispose();
      const budget = context.budget!;
      expect(budget.system).toBe(tokenizer(context.system));
      expect(budget.ephemeral).toEqual([tokenizer('Tick 1.')]);
      expect(budget.tokens).toBeLessThanOrEqual(1_500);
      expect(budget.dropped.messages).toBeGreaterThan(0);
      const sum =
        budget.system +
        budget.tools[0]! +
        budget.messages.reduce((a, b) => a + b, 0) +
        budget.ephemeral[0]! +
        4;
      expect(budget.tokens).toBe(sum);
    }
    expect(countTokens('données données')).not.toBe(Math.ceil('données données'.length / 4));
  });

  it('ends the run `error` when what may not be dropped is over budget, and resumes with a larger one', async () => {
    const { model, attach } = inspectTurns(4);
    const session = createSession(<LongAgent />, { model, context: { maxTokens: 2_000 } });
    attach(session);
    const first = await session.run({ maxTicks: 2 });
    expect(first.status).toBe('max-ticks');
    const before = session.state;

    const tooSmall = await session.run({ context: { maxTokens: 40 } });
    expect(tooSmall.status).toBe('error');
    expect(tooSmall.error).toBeInstanceOf(ContextBudgetError);
    expect(tooSmall.reason).toMatch(/maxTokens 40/);
    expect(tooSmall.reason).toMatch(/system text without a priority \d+/);
    expect(tooSmall.reason).toMatch(/tools \(1\) \d+/);
    expect(session.state.timeline).toBe(before.timeline);
    expect(session.state.tick).toBe(before.tick);
    expect(model.calls).toHaveLength(2);

    const resumed = await session.run({ context: { maxTokens: 4_000 } });
    expect(resumed.status).toBe('completed');
    expect(resumed.totalTicks).toBe(4);
    session.dispose();
  });
});
