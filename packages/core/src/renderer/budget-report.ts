/**
 * How one request fits its token budget (`CompiledContext.budget`, shown by `formatContext`).
 * context-budget/ fills it in; it lives here because the compiled context carries it.
 */
export interface ContextBudgetReport {
  /** The budget this request was held to. */
  maxTokens: number;
  /** Tokens a cut prunes the request down to. */
  lowWater: number;
  /** Tokens of the request as sent. */
  tokens: number;
  /** Tokens the request would hold with nothing dropped. */
  unpruned: number;
  /** Estimated tokens of the system text. */
  system: number;
  /** One entry per tool, in `tools` order. */
  tools: number[];
  /** One entry per message of `messages` (markers included). */
  messages: number[];
  /** One entry per kept ephemeral block, in `ephemeral` order. */
  ephemeral: number[];
  /** What was left out to fit. */
  dropped: DroppedCounts;
  /** True when this request moved the cut (it reached `maxTokens` and was pruned to `lowWater`). */
  recut: boolean;
}

/** What a context budget left out of one request, by kind. */
export interface DroppedCounts {
  /** Messages left out (timeline and fixed), replaced by marker messages. */
  messages: number;
  /** Prioritized `<System>` / `<Section>` elements left out of the system text. */
  system: number;
  /** Ephemeral blocks left out. */
  ephemeral: number;
  /** Estimated tokens saved by leaving all of these out. */
  tokens: number;
}
