import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/** `context.maxTokens`, `lowWater` or `tokenizer` is not usable. */
export class InvalidContextBudgetError extends AgateError {
  static {
    nameErrorClass(InvalidContextBudgetError, 'InvalidContextBudgetError');
  }
}

/** One part of a request that may not be dropped, and its size. */
export interface BudgetHolding {
  /** What it is: `system`, `tools (3)`, `ephemeral [gate:verification]`, `messages kept by keepLast (6)`, ... */
  what: string;
  /** Its estimated tokens. */
  tokens: number;
}

/**
 * What may not be dropped (system text without a priority, tools, guard content, messages
 * without a priority, the newest `keepLast` messages) is itself over `maxTokens`. The tick
 * fails before the model call, so the session keeps the state of its last completed tick and
 * can be resumed with a larger budget: `session.run({ context: { maxTokens: larger } })`.
 */
export class ContextBudgetError extends AgateError {
  static {
    nameErrorClass(ContextBudgetError, 'ContextBudgetError');
  }
  /** The budget. */
  readonly maxTokens: number;
  /** The estimated tokens of what could not be dropped (the holdings' sum). */
  readonly tokens: number;
  /** What could not be dropped: where the tokens went. */
  readonly holdings: readonly BudgetHolding[];

  constructor(maxTokens: number, holdings: readonly BudgetHolding[]) {
    const tokens = holdings.reduce((sum, h) => sum + h.tokens, 0);
    const parts = holdings
      .filter((h) => h.tokens > 0)
      .map((h) => `${h.what} ${h.tokens.toLocaleString('en-US')}`)
      .join(', ');
    super(
      `The context budget (maxTokens ${maxTokens.toLocaleString('en-US')}) is smaller than what ` +
        `may not be dropped: ${tokens.toLocaleString('en-US')} tokens (${parts}). Nothing was sent ` +
        'and the session keeps its last completed tick. Raise the budget ' +
        `(session.run({ context: { maxTokens: ${suggest(tokens)} } })) or give more elements a priority.`,
    );
    this.maxTokens = maxTokens;
    this.tokens = tokens;
    this.holdings = holdings;
  }
}

function suggest(tokens: number): number {
  return Math.ceil((tokens * 1.5) / 1000) * 1000;
}
