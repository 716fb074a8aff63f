import { createSession, estimateTokens, System, Timeline, Tool } from '@agate/core';
import * as PromptTsx from '@vscode/prompt-tsx';
import type { ModelMessage } from 'ai';
import { countTokens } from 'gpt-tokenizer';
import { collectGarbage, cpuMs, median, roundOrder, type Summary, summarize } from './stats.js';
import { benchModel, executeTool, TOOL_NAMES, toolInput } from './workload.js';

/**
 * Context budgets (issue 27: like for like): the same n messages pruned to the same 8,000-token
 * budget with the same tokenizer, Agate and `@vscode/prompt-tsx` side by side in one process.
 * Both full renders (every message counted) are compared with each other, for two tokenizers:
 * the chars/4 estimate and gpt-tokenizer's `countTokens` (o200k). Agate's incremental path
 * (the cut kept between ticks, only new messages counted) is shown on its own: prompt-tsx has
 * no incremental path (every `renderPrompt` is a full render), so there is nothing like it to
 * compare with.
 */
export const BUDGET_TOKENS = 8_000;
export const SYSTEM_TEXT = 'You are a benchmark agent. Answer the last message.';

export type TokenizerName = 'chars/4' | 'gpt-tokenizer';
const TOKENIZERS: Record<TokenizerName, (text: string) => number> = {
  'chars/4': estimateTokens,
  'gpt-tokenizer': countTokens,
};

export interface ContextBudgetOptions {
  sizes: readonly number[];
  /** Interleaved samples per size and tokenizer of the two full renders. */
  fullSamples: (size: number) => number;
  /** Repetitions of the in-tick measurement; each is a block of `ticksPerRep` real ticks. */
  reps: number;
  ticksPerRep: number;
  /**
   * Blocks of every size per repetition (the sizes alternate); the repetition keeps each size's
   * fastest block median, since noise only adds time. Default 1.
   */
  inner?: number;
  warmupTicks: number;
}

export interface FullRenderRow {
  messages: number;
  tokenizer: TokenizerName;
  promptTsx: Summary;
  agate: Summary;
  /** prompt-tsx / Agate, per interleaved sample pair. */
  ratio: Summary;
  promptTsxKept: number;
  agateKept: number;
}

export interface InTickRow {
  messages: number;
  /** Render + compile + prune inside a real tick (tick:start → model:request): block medians. */
  render: Summary;
  /** The whole tick (tick:start → tick:end, mock model): block medians. */
  tick: Summary;
  /** Per-block medians in repetition order (for per-repetition ratios between sizes). */
  tickBlocks: number[];
  renderBlocks: number[];
  /** Every block's median tick, by repetition and round (`tickRounds[rep][round]`). */
  tickRounds: number[][];
}

export interface ContextBudgetResult {
  full: FullRenderRow[];
  inTick: InTickRow[];
  /** Whole tick at the largest size / at the one before it, per repetition (fastest blocks). */
  tickRatio: Summary | undefined;
  /** The same, as the median of each repetition's rounds' ratios (a round: a block of each size). */
  tickRatioPaired: Summary | undefined;
  largest: number;
  reference: number;
  /** Blocks of every size per repetition (each repetition keeps the fastest). */
  inner: number;
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

/** prompt-tsx's tokenizer interface over the same count, plus the same 4 tokens per message. */
function promptTsxTokenizer(
  count: (text: string) => number,
): PromptTsx.ITokenizer<PromptTsx.OutputMode.Raw> {
  const textOf = (part: PromptTsx.Raw.ChatCompletionContentPart) =>
    part.type === PromptTsx.Raw.ChatCompletionContentPartKind.Text ? count(part.text) : 0;
  return {
    mode: PromptTsx.OutputMode.Raw,
    tokenLength: (part) => textOf(part),
    countMessageTokens: (message) =>
      4 + message.content.reduce((sum, part) => sum + textOf(part), 0),
  };
}

async function renderWithPromptTsx(
  history: HistoryPromptProps['history'],
  tokenizer: PromptTsx.ITokenizer<PromptTsx.OutputMode.Raw>,
): Promise<number> {
  const result = await PromptTsx.renderPrompt(
    HistoryPrompt,
    { history },
    { modelMaxPromptTokens: BUDGET_TOKENS },
    tokenizer,
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

/**
 * Agate's full render: a new session holding the n messages, every message counted once, cut to
 * the same budget prompt-tsx fills (`lowWater: maxTokens`, so it keeps as much as fits).
 */
function agateFull(
  timeline: ModelMessage[],
  tokenizer: (text: string) => number,
): { ms: number; kept: number } {
  const session = createSession(<BudgetAgent tools={false} />, {
    model: benchModel(1),
    state: { timeline },
    maxTimelineMessages: Math.max(timeline.length, 2),
    context: { maxTokens: BUDGET_TOKENS, lowWater: BUDGET_TOKENS, tokenizer },
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
 * Real ticks on sessions holding `size` messages (each trims its oldest as new ones come, so the
 * size stays put) with the 8,000-token budget and the workload's tools; the cut is kept between ticks. The
 * sizes take turns, one block of ticks each per repetition, so a ratio between two sizes is
 * taken within one repetition.
 */
async function inTick(
  sizes: readonly number[],
  options: ContextBudgetOptions,
  log: (line: string) => void,
): Promise<InTickRow[]> {
  const rows = new Map<number, { render: number[]; tick: number[]; tickRounds: number[][] }>();
  const sessions = sizes.map((size) => {
    const row = { render: [] as number[], tick: [] as number[], tickRounds: [] as number[][] };
    rows.set(size, row);
    let start = 0;
    let render: number[] = [];
    let tick: number[] = [];
    const session = createSession(<BudgetAgent tools />, {
      model: benchModel(Number.MAX_SAFE_INTEGER),
      state: { timeline: budgetHistory(size) },
      maxTimelineMessages: Math.max(size, 2),
      context: { maxTokens: BUDGET_TOKENS },
      onEvent: (event) => {
        // CPU time of this process, as the tick rows: the wall clock also counts the time other
        // processes held the CPU, which on a shared machine moved a block's median by half.
        if (event.type === 'tick:start') start = cpuMs();
        else if (event.type === 'model:request') render.push(cpuMs() - start);
        else if (event.type === 'tick:end') tick.push(cpuMs() - start);
      },
    });
    /** Runs a block of ticks; returns its medians. */
    const block = async (ticks: number) => {
      render = [];
      tick = [];
      const result = await session.run({ maxTicks: ticks });
      if (result.status !== 'max-ticks')
        throw new Error(`run ended ${result.status}: ${result.reason}`);
      const budget = session.context?.budget;
      if (budget === undefined || budget.tokens > BUDGET_TOKENS) {
        throw new Error(`the budgeted session sent ${budget?.tokens} tokens`);
      }
      return { render: summarize(render).median, tick: summarize(tick).median };
    };
    return { size, session, block, row };
  });
  try {
    for (const s of sessions) await s.block(options.warmupTicks);
    const { reps } = options;
    const best = Array.from(
      { length: reps },
      () => new Map<number, { render: number; tick: number }>(),
    );
    for (const s of sessions) s.row.tickRounds.push(...Array.from({ length: reps }, () => []));
    // Round-robin over the repetitions (see tick-overhead.ts): a burst of machine noise touches a
    // round of several repetitions, which their medians set aside, not a whole repetition.
    for (let round = 0; round < (options.inner ?? 1); round++) {
      for (const rep of roundOrder(reps, round)) {
        for (const s of (round + rep) % 2 === 0 ? sessions : [...sessions].reverse()) {
          const medians = await s.block(options.ticksPerRep);
          s.row.tickRounds[rep]!.push(medians.tick);
          const prev = best[rep]!.get(s.size);
          best[rep]!.set(s.size, {
            render: Math.min(prev?.render ?? Number.POSITIVE_INFINITY, medians.render),
            tick: Math.min(prev?.tick ?? Number.POSITIVE_INFINITY, medians.tick),
          });
        }
      }
    }
    for (let rep = 0; rep < reps; rep++) {
      for (const s of sessions) {
        s.row.render.push(best[rep]!.get(s.size)!.render);
        s.row.tick.push(best[rep]!.get(s.size)!.tick);
      }
      log(
        `  in a tick, rep ${rep + 1}/${reps}: ${sessions
          .map((s) => `${s.size}: ${rows.get(s.size)!.tick.at(-1)!.toFixed(3)} ms`)
          .join(', ')} (fastest block)`,
      );
    }
  } finally {
    for (const s of sessions) s.session.dispose();
  }
  return sizes.map((size) => {
    const row = rows.get(size)!;
    return {
      messages: size,
      render: summarize(row.render),
      tick: summarize(row.tick),
      tickBlocks: row.tick,
      renderBlocks: row.render,
      tickRounds: row.tickRounds,
    };
  });
}

export async function measureContextBudget(
  options: ContextBudgetOptions,
  log: (line: string) => void = () => {},
): Promise<ContextBudgetResult> {
  const full: FullRenderRow[] = [];
  for (const size of options.sizes) {
    const timeline = budgetHistory(size);
    const history = timeline.map((m) => ({
      role: m.role as 'user' | 'assistant',
      text: plainText(m),
    }));
    for (const name of Object.keys(TOKENIZERS) as TokenizerName[]) {
      const count = TOKENIZERS[name];
      const tsxTokenizer = promptTsxTokenizer(count);
      // Warm-ups (JIT), then interleaved pairs so both sides see the same machine load.
      await renderWithPromptTsx(history, tsxTokenizer);
      agateFull(timeline, count);
      const tsx: number[] = [];
      const agate: number[] = [];
      const ratios: number[] = [];
      let promptTsxKept = 0;
      let agateKept = 0;
      for (let i = 0; i < options.fullSamples(size); i++) {
        collectGarbage();
        const t0 = performance.now();
        promptTsxKept = await renderWithPromptTsx(history, tsxTokenizer);
        const a = performance.now() - t0;
        collectGarbage();
        const b = agateFull(timeline, count);
        agateKept = b.kept;
        tsx.push(a);
        agate.push(b.ms);
        ratios.push(a / b.ms);
      }
      full.push({
        messages: size,
        tokenizer: name,
        promptTsx: summarize(tsx),
        agate: summarize(agate),
        ratio: summarize(ratios),
        promptTsxKept,
        agateKept,
      });
      log(`  full renders, ${size} messages, ${name}: done`);
    }
  }
  const rows = await inTick(options.sizes, options, log);
  const largest = rows.at(-1)!;
  const reference = rows.at(-2);
  const tickRatio =
    reference === undefined
      ? undefined
      : summarize(largest.tickBlocks.map((t, i) => t / reference.tickBlocks[i]!));
  const tickRatioPaired =
    reference === undefined
      ? undefined
      : summarize(
          largest.tickRounds.map((rounds, rep) =>
            median(rounds.map((t, round) => t / reference.tickRounds[rep]![round]!)),
          ),
        );
  return {
    full,
    inTick: rows,
    tickRatio,
    tickRatioPaired,
    largest: largest.messages,
    reference: reference?.messages ?? largest.messages,
    inner: options.inner ?? 1,
  };
}
