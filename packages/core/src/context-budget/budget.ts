import type { CompiledTree } from '../renderer/compile.js';
import type { CompiledContext } from '../renderer/compiled-context.js';
import type { AgateEvent } from '../runtime/events.js';
import { type ContextBudgetOptions, type ResolvedBudget, resolveBudget } from './budget-options.js';
import { type Cut, NO_CUT, pruneToBudget } from './prune.js';
import { TokenCounter } from './tokens.js';

/**
 * A session's context budget: the options in force (the session's, or one run's), the token
 * counter (its caches live as long as the session) and the cut kept between ticks. Without a
 * budget it does nothing, and compile records nothing extra.
 */
export class ContextBudget {
  private sessionOptions: ContextBudgetOptions | undefined;
  private runOptions: ContextBudgetOptions | undefined;
  private resolved: ResolvedBudget | undefined;
  private counter: TokenCounter | undefined;
  private cut: Cut = NO_CUT;

  constructor(
    options: ContextBudgetOptions | undefined,
    private readonly emit: (event: AgateEvent) => void,
  ) {
    this.sessionOptions = options;
    this.resolve();
  }

  /** `run({ context })` overrides the session's budget for that run (undefined: the session's). */
  forRun(options: ContextBudgetOptions | undefined): void {
    this.runOptions = options;
    this.resolve();
  }

  /** Whether compile must record the layout (a budget is set). */
  get active(): boolean {
    return this.resolved !== undefined;
  }

  /**
   * The context as it will be sent: unchanged without a budget; otherwise pruned to it, with
   * `budget` filled in and a `context:pruned` event when anything was left out.
   */
  apply(context: CompiledContext, tree: CompiledTree, tick: number): CompiledContext {
    const budget = this.resolved;
    if (budget === undefined || tree.layout === undefined) return context;
    if (this.counter?.tokenizer !== budget.tokenizer)
      this.counter = new TokenCounter(budget.tokenizer);
    const result = pruneToBudget(
      {
        system: context.system,
        tools: context.tools,
        ephemeral: context.ephemeral,
        layout: tree.layout,
      },
      budget,
      this.counter,
      this.cut,
    );
    this.cut = result.cut;
    const { report } = result;
    const { dropped } = report;
    if (dropped.messages + dropped.system + dropped.ephemeral > 0) {
      this.emit({
        type: 'context:pruned',
        tick,
        maxTokens: budget.maxTokens,
        tokensBefore: report.unpruned,
        tokensAfter: report.tokens,
        droppedMessages: dropped.messages,
        droppedElements: dropped.system + dropped.ephemeral,
        recut: report.recut,
      });
    }
    return {
      ...context,
      system: result.system,
      messages: result.messages,
      ephemeral: result.ephemeral,
      budget: report,
    };
  }

  private resolve(): void {
    const options = this.runOptions ?? this.sessionOptions;
    const next = options === undefined ? undefined : resolveBudget(options);
    const last = this.resolved;
    // A different budget starts from a fresh cut (a larger one should be used, not kept empty).
    if (next?.maxTokens !== last?.maxTokens || next?.lowWater !== last?.lowWater) this.cut = NO_CUT;
    this.resolved = next;
  }
}
