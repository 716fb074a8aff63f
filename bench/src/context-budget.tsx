import { createSession, estimateTokens, System, Timeline, Tool } from '@agate/core';
import * as PromptTsx from '@vscode/prompt-tsx';
import type { ModelMessage } from 'ai';
import { collectGarbage, type Summary, summarize } from './stats.js';
import { benchModel, executeTool, TOOL_NAMES, toolInput } from './workload.js';

/**
 * Context budgets: pruning a long history to an 8,000-token budget, Agate side by side with
 * `@vscode/prompt-tsx` in the same process, on the same messages, with the same chars/4
 * tokenizer. The history is a system message plus n messages alternating user/assistant,
 * each about 33 tokens; priorities rise with recency (prompt-tsx: `priority={i}` per message;
 * Agate: a `<Timeline />`, which drops its oldest messages first).
 */
export const BUDGET_TOKENS = 8_000;
/** Agate first renders per prompt-tsx render. */
const COLD_PER_SAMPLE = 5;
export const SYSTEM_TEXT = 'You are a benchmark agent. Answer the last message.';

export interface ContextBudgetOptions {
  sizes: readonly number[];
  /** Samples per size for the cold renders (prompt-tsx and Agate's first render). */
  coldSamples: (size: number) => number;
  /** Measured ticks per size for the per-tick figures. */
  ticks: number;
  warmupTicks: number;
}

export interface ContextBudgetResult {
  messages: number;
  /** prompt-tsx `renderPrompt` with priorities and the 8,000-token budget. */
  promptTsx: Summary;
  /** Messages prompt-tsx kept (for the reader to compare with Agate's). */
  promptTsxKept: number;
  /** Agate's first render of a new session: every message counted once, then pruned. */
  agateCold: Summary;
  agateKept: number;
  /** Inside real ticks: render + compile + prune (tick:start → model:request). */
  agateRender: Summary;
  /** A whole tick: render, prune, model call (mock), tool, commit (tick:start → tick:end). */
  agateTick: Summary;
}

export function budgetHistory(count: number): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let i = 0; i < count; i++) {
    const text = `Message ${i}: ${'lorem ipsum '.repeat(10)}`;
    out.push(
      i % 2 === 0
        ? { role: 'user', content: text }
        : { role: 'assistant', content: [{ type: 'text', text }] },
    );
  }
  return out;
}

const plainText = (message: ModelMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => ('text' in p ? p.text : '')).join('');

// ---- prompt-tsx, written the way its README and examples/history.tsx show -------------------

type Vscpp = (ctor: unknown, props: unknown, ...children: unknown[]) => unknown;
/** prompt-tsx's JSX factory (it installs `vscpp`/`vscppf` as globals; this repo's JSX is React's). */
const { vscpp, vscppf } = globalThis as unknown as { vscpp: Vscpp; vscppf: unknown };

interface HistoryPromptProps extends PromptTsx.BasePromptElementProps {
  history: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>;
}

class HistoryPrompt extends PromptTsx.PromptElement<HistoryPromptProps> {
  render() {
    const { history } = this.props;
    return vscpp(
      vscppf,
      null,
      vscpp(PromptTsx.SystemMessage, { priority: Number.MAX_SAFE_INTEGER }, SYSTEM_TEXT),
      ...history.map((m, i) =>
        vscpp(
          m.role === 'user' ? PromptTsx.UserMessage : PromptTsx.AssistantMessage,
          { priority: i },
          m.text,
        ),
      ),
    ) as PromptTsx.PromptPiece;
  }
}

/** The same chars/4 estimate Agate uses by default, plus the same 4 tokens per message. */
const charsOver4: PromptTsx.ITokenizer<PromptTsx.OutputMode.Raw> = {
  mode: PromptTsx.OutputMode.Raw,
  tokenLength: (part) =>
    part.type === PromptTsx.Raw.ChatCompletionContentPartKind.Text ? estimateTokens(part.text) : 0,
  countMessageTokens: (message) =>
    4 +
    message.content.reduce(
      (sum, part) =>
        sum +
        (part.type === PromptTsx.Raw.ChatCompletionContentPartKind.Text
          ? estimateTokens(part.text)
          : 0),
      0,
    ),
};

async function renderWithPromptTsx(history: HistoryPromptProps['history']): Promise<number> {
  const result = await PromptTsx.renderPrompt(
    HistoryPrompt,
    { history },
    { modelMaxPromptTokens: BUDGET_TOKENS },
    charsOver4,
  );
  if (result.tokenCount > BUDGET_TOKENS)
    throw new Error(`prompt-tsx sent ${result.tokenCount} tokens`);
  return result.messages.length;
}

// ---- Agate ------------------------------------------------------------------------------------

function BudgetAgent(props: { tools: boolean }) {
  return (
    <>
      <System>{SYSTEM_TEXT}</System>
      <Timeline />
      {props.tools
        ? TOOL_NAMES.map((name) => (
            <Tool
              key={name}
              name={name}
              description={`Checklist tool ${name}.`}
              input={toolInput}
              execute={executeTool}
            />
          ))
        : null}
    </>
  );
}

function agateCold(timeline: ModelMessage[]): { ms: number; kept: number } {
  const session = createSession(<BudgetAgent tools={false} />, {
    model: benchModel(1),
    state: { timeline },
    context: { maxTokens: BUDGET_TOKENS },
  });
  try {
    const t0 = performance.now();
    const context = session.render();
    const ms = performance.now() - t0;
    if ((context.budget?.tokens ?? Number.POSITIVE_INFINITY) > BUDGET_TOKENS) {
      throw new Error(`Agate sent ${context.budget?.tokens} tokens`);
    }
    return { ms, kept: context.messages.length };
  } finally {
    session.dispose();
  }
}

/**
 * Real ticks on a session holding `size` messages (the session trims its oldest as new ones
 * come, so the size stays put) with the 8,000-token budget: the cut is kept between ticks and
 * moves when the budget is reached again.
 */
async function agateTicks(
  size: number,
  options: ContextBudgetOptions,
): Promise<{ render: Summary; tick: Summary }> {
  const render: number[] = [];
  const tick: number[] = [];
  let start = 0;
  let measuring = false;
  const session = createSession(<BudgetAgent tools />, {
    model: benchModel(Number.MAX_SAFE_INTEGER),
    state: { timeline: budgetHistory(size) },
    maxTimelineMessages: Math.max(size, 2),
    context: { maxTokens: BUDGET_TOKENS },
    onEvent: (event) => {
      if (event.type === 'tick:start') start = performance.now();
      else if (event.type === 'model:request' && measuring) render.push(performance.now() - start);
      else if (event.type === 'tick:end' && measuring) tick.push(performance.now() - start);
    },
  });
  try {
    const warm = await session.run({ maxTicks: options.warmupTicks });
    if (warm.status !== 'max-ticks')
      throw new Error(`warm-up ended ${warm.status}: ${warm.reason}`);
    const budget = session.context?.budget;
    if (budget === undefined || budget.tokens > BUDGET_TOKENS) {
      throw new Error(`the budgeted session sent ${budget?.tokens} tokens`);
    }
    measuring = true;
    const result = await session.run({ maxTicks: options.ticks });
    if (result.status !== 'max-ticks')
      throw new Error(`run ended ${result.status}: ${result.reason}`);
  } finally {
    session.dispose();
  }
  return { render: summarize(render), tick: summarize(tick) };
}

export async function measureContextBudget(
  options: ContextBudgetOptions,
  log: (line: string) => void = () => {},
): Promise<ContextBudgetResult[]> {
  const results: ContextBudgetResult[] = [];
  for (const size of options.sizes) {
    const timeline = budgetHistory(size);
    const history = timeline.map((m) => ({
      role: m.role as 'user' | 'assistant',
      text: plainText(m),
    }));
    const samples = options.coldSamples(size);
    // Warm-ups (JIT), then interleaved samples so both sides see the same machine load; Agate's
    // first render is cheap, so it is sampled several times per prompt-tsx render.
    await renderWithPromptTsx(history);
    for (let i = 0; i < COLD_PER_SAMPLE; i++) agateCold(timeline);
    const tsxTimes: number[] = [];
    const coldTimes: number[] = [];
    let promptTsxKept = 0;
    let agateKept = 0;
    for (let i = 0; i < samples; i++) {
      collectGarbage();
      const t0 = performance.now();
      promptTsxKept = await renderWithPromptTsx(history);
      tsxTimes.push(performance.now() - t0);
      for (let j = 0; j < COLD_PER_SAMPLE; j++) {
        collectGarbage();
        const cold = agateCold(timeline);
        coldTimes.push(cold.ms);
        agateKept = cold.kept;
      }
    }
    log(`  ${size} messages: prompt-tsx and Agate cold done; ticks...`);
    collectGarbage();
    const ticks = await agateTicks(size, options);
    results.push({
      messages: size,
      promptTsx: summarize(tsxTimes),
      promptTsxKept,
      agateCold: summarize(coldTimes),
      agateKept,
      agateRender: ticks.render,
      agateTick: ticks.tick,
    });
  }
  return results;
}
