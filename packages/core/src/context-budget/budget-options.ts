import { InvalidContextBudgetError } from './context-budget-errors.js';

/** Counts the tokens of a text the way your model's tokenizer does (or estimates it). */
export type Tokenizer = (text: string) => number;

/** `createSession(element, { context })` and `run({ context })`: a token budget per request. */
export interface ContextBudgetOptions {
  /** The most tokens one request may hold: system text, tool schemas, messages, ephemeral content. */
  maxTokens: number;
  /** Counts tokens. Default: `estimateTokens` (characters / 4, rounded up), fast and model-agnostic. */
  tokenizer?: Tokenizer;
  /**
   * When a request would exceed `maxTokens`, prune it down to this many tokens and keep that cut
   * until `maxTokens` is reached again, so consecutive requests share their prefix (and the
   * provider's prompt cache). Default: 75% of `maxTokens`.
   */
  lowWater?: number;
}

/** The fast default: one token per four characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export interface ResolvedBudget {
  maxTokens: number;
  lowWater: number;
  tokenizer: Tokenizer;
}

export const DEFAULT_LOW_WATER_SHARE = 0.75;

/** Checks the options once per run, so a bad budget fails before any model call. */
export function resolveBudget(options: ContextBudgetOptions): ResolvedBudget {
  const { maxTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens <= 0) {
    throw new InvalidContextBudgetError(
      `context.maxTokens must be a positive whole number of tokens; got ${JSON.stringify(maxTokens)}.`,
    );
  }
  const lowWater = options.lowWater ?? Math.floor(maxTokens * DEFAULT_LOW_WATER_SHARE);
  if (!Number.isFinite(lowWater) || lowWater <= 0 || lowWater > maxTokens) {
    throw new InvalidContextBudgetError(
      `context.lowWater must be a number of tokens above 0 and at most maxTokens (${maxTokens}); ` +
        `got ${JSON.stringify(options.lowWater)}. Leave it out for 75% of maxTokens.`,
    );
  }
  if (options.tokenizer !== undefined && typeof options.tokenizer !== 'function') {
    throw new InvalidContextBudgetError(
      'context.tokenizer must be a function (text: string) => number, for example countTokens from gpt-tokenizer.',
    );
  }
  return { maxTokens, lowWater, tokenizer: options.tokenizer ?? estimateTokens };
}
