import type { LanguageModel } from 'ai';
import type { ReactNode } from 'react';
import type { ZodType, z } from 'zod';
import type { ContextBudgetOptions } from '../../context-budget/budget-options.js';
import type { RunResult } from '../../runtime/session-options.js';

export const SUBAGENT_FAMILY = 'subagents';
/** Ticks a child may take per run unless `<SubAgent maxTicks>` says otherwise. */
export const DEFAULT_SUBAGENT_MAX_TICKS = 25;
/** Calls of one `<SubAgent>` running at once unless `maxConcurrency` says otherwise. */
export const DEFAULT_SUBAGENT_CONCURRENCY = 4;

/**
 * Props of `<SubAgent>`: a tool the model calls to hand work to a child agent, run as a session of
 * its own.
 */
export interface SubAgentProps<S extends ZodType = ZodType> {
  /** The tool's name (what the model calls) and the sub-agent's name in paths and spans. */
  name: string;
  /** The tool's description: when the model should hand work to this sub-agent. */
  description: string;
  /** The call's arguments, checked before the child starts; `agent` receives the parsed value. */
  input: S;
  /** The child agent's tree for one call. It runs as a session of its own. */
  agent: (input: z.infer<S>) => ReactNode;
  /** The child's model. Default: the parent's. */
  model?: LanguageModel;
  /** Ticks one child run may take (default 25). */
  maxTicks?: number;
  /** The child's token budget per request (its own; the parent's does not apply). */
  context?: ContextBudgetOptions;
  /** Calls of this sub-agent running at once when the model makes several in one response (default 4). */
  maxConcurrency?: number;
}

/** What `<SubAgent>` declares (its props, read at call time so `agent` is never stale). */
export interface SubAgentConfig {
  name: string;
  description: string;
  input: ZodType;
  agent: (input: unknown) => ReactNode;
  model?: LanguageModel;
  maxTicks: number;
  context?: ContextBudgetOptions;
  maxConcurrency: number;
}

/** One sub-agent call's run, in `RunResult.subAgents` (by call id). */
export interface SubAgentRun extends RunResult {
  /** The `<SubAgent name>`. */
  name: string;
  /** Where it ran: `['reviewer#call_3']` (one segment per level of nesting). */
  path: string[];
}
