import type { ModelMessage } from 'ai';
import type { ContextBudgetReport } from '../renderer/budget-report.js';
import type { EphemeralBlock } from '../renderer/compiled-context.js';
import type { ContextLayout, MessageSegment } from '../renderer/context-layout.js';
import { assemble, MARKER_ESTIMATE, type Plan } from './assemble.js';
import type { ResolvedBudget } from './budget-options.js';
import { ContextBudgetError } from './context-budget-errors.js';
import { holdings } from './holdings.js';
import type { PruneInput } from './prune-input.js';
import { MESSAGE_OVERHEAD, type TokenCounter } from './tokens.js';

/** What the budget prunes: the compiled context and the layout compile recorded for it. */

/**
 * Where the last pruning cut, kept from tick to tick: the elements left out (by their host
 * node) and, per timeline, the newest message left out. Timeline messages are frozen objects,
 * so the same message can be found again in next tick's (longer) timeline.
 */
export interface Cut {
  dropped: ReadonlySet<object>;
  timelines: ReadonlyMap<object, { last: ModelMessage; index: number }>;
}

export const NO_CUT: Cut = { dropped: new Set(), timelines: new Map() };

export type { PruneInput } from './prune-input.js';

export interface PruneResult {
  system: string;
  messages: ModelMessage[];
  ephemeral: EphemeralBlock[];
  report: ContextBudgetReport;
  cut: Cut;
}

/** A droppable element or a whole timeline, in the order the budget gives them up. */
interface Candidate {
  priority: number;
  /** Request order: system units, then messages (by segment), then ephemeral blocks. */
  position: number;
  kind: 'system' | 'message' | 'ephemeral' | 'timeline';
  key: object;
  index: number;
  tokens: number;
}

/**
 * Prunes a compiled context to its budget. Pure apart from the token counter's caches.
 *
 * - Keep the previous cut while the request fits `maxTokens`: the request's prefix stays
 *   byte-identical from tick to tick (provider prompt caches hit).
 * - Otherwise cut afresh, down to `lowWater`: whole elements, lowest priority first, ties in
 *   request order (oldest first); a timeline gives up its oldest messages first, an assistant
 *   turn together with its tool results, never its newest `keepLast`.
 * - What has no priority (system text, fixed messages, guard content, tools) is never dropped;
 *   when that alone is over `maxTokens` a `ContextBudgetError` says what it holds.
 *
 * Cost: O(elements + kept messages + new messages); the dropped part of a long timeline is
 * never walked (a running token sum answers the size of any range).
 */
export function pruneToBudget(
  input: PruneInput,
  budget: ResolvedBudget,
  counter: TokenCounter,
  previous: Cut = NO_CUT,
): PruneResult {
  const { layout } = input;
  const { segments } = layout;
  for (const segment of segments)
    if (segment.kind === 'timeline') counter.prepare(segment.messages);
  const fixed = fixedTokens(input, counter);
  const systemTokens = counter.text(input.system);
  const ephemeralTokens = input.ephemeral.map((b) => counter.text(b.text));
  const protectedFrom = segments.map((s) => (s.kind === 'timeline' ? keptFrom(s) : 0));

  const total = (plan: Plan): number => {
    let sum = fixed.tools + systemTokens;
    for (const unit of layout.system) {
      if (plan.dropped.has(unit.key) && !ancestorDropped(layout, unit.parent, plan.dropped))
        sum -= counter.text(unit.text);
    }
    let markers = 0;
    segments.forEach((segment, i) => {
      if (segment.kind === 'message') {
        if (plan.dropped.has(segment.key)) markers = 1;
        else sum += counter.message(segment.message);
      } else {
        const cut = plan.cuts[i] ?? 0;
        if (cut > 0) markers = 1;
        sum += counter.range(segment.messages, cut, segment.messages.length);
      }
    });
    let ephemeral = 0;
    input.ephemeral.forEach((_block, i) => {
      const key = layout.ephemeral[i]?.key;
      if (key === undefined || !plan.dropped.has(key)) ephemeral += ephemeralTokens[i] ?? 0;
    });
    return sum + markers * MARKER_ESTIMATE + (ephemeral > 0 ? ephemeral + MESSAGE_OVERHEAD : 0);
  };

  const unpruned = total({ dropped: new Set(), cuts: [] });
  const candidates = candidatesOf(input, counter, ephemeralTokens);
  let plan = fromCut(previous, candidates, segments, protectedFrom);
  let recut = false;
  // Estimated first: a request far over budget (a long history's first tick) is not assembled.
  let assembled = total(plan) <= budget.maxTokens ? assemble(input, plan, counter) : undefined;
  if (assembled === undefined || assembled.tokens > budget.maxTokens) {
    recut = true;
    const floor =
      unpruned -
      droppableTokens(candidates, segments, protectedFrom, counter, input.ephemeral.length);
    if (floor > budget.maxTokens) {
      throw new ContextBudgetError(budget.maxTokens, holdings(input, counter, protectedFrom));
    }
    plan = { dropped: new Set(), cuts: segments.map(() => 0) };
    // The estimate of the marker and of dropped sections can be a few tokens off (a marker
    // naming many turns is longer than MARKER_ESTIMATE): cut again, lower, in the rare case
    // the assembled request is still over the low-water mark, so a new cut really goes down
    // to it (what may not be dropped can keep it above; maxTokens is checked below).
    let target = budget.lowWater;
    for (let attempt = 0; attempt < 4; attempt++) {
      greedy(plan, candidates, total(plan), target, segments, protectedFrom, counter, layout);
      assembled = assemble(input, plan, counter);
      if (assembled.tokens <= budget.lowWater) break;
      // From this plan's estimate, not the old target: the estimate may already be below it.
      target = Math.min(target, total(plan)) - (assembled.tokens - budget.lowWater);
    }
    if (assembled === undefined || assembled.tokens > budget.maxTokens) {
      throw new ContextBudgetError(budget.maxTokens, holdings(input, counter, protectedFrom));
    }
  }

  const timelines = new Map<object, { last: ModelMessage; index: number }>();
  segments.forEach((segment, i) => {
    const cut = plan.cuts[i] ?? 0;
    if (segment.kind === 'timeline' && cut > 0) {
      timelines.set(segment.key, {
        last: segment.messages[cut - 1] as ModelMessage,
        index: cut - 1,
      });
    }
  });
  return {
    system: assembled.system,
    messages: assembled.messages,
    ephemeral: assembled.ephemeral,
    report: {
      maxTokens: budget.maxTokens,
      lowWater: budget.lowWater,
      tokens: assembled.tokens,
      unpruned,
      system: assembled.systemTokens,
      tools: fixed.each,
      messages: assembled.messageTokens,
      ephemeral: assembled.ephemeralTokens,
      dropped: { ...assembled.dropped, tokens: Math.max(0, unpruned - assembled.tokens) },
      recut,
    },
    cut: { dropped: plan.dropped, timelines },
  };
}

function fixedTokens(input: PruneInput, counter: TokenCounter): { tools: number; each: number[] } {
  const each = input.tools.map((t) => counter.tool(t));
  return { tools: each.reduce((a, b) => a + b, 0), each };
}

/** Where a timeline's never-dropped tail starts: its newest `keepLast`, with their calls. */
function keptFrom(segment: Extract<MessageSegment, { kind: 'timeline' }>): number {
  const { messages, keepLast } = segment;
  let from = Math.max(0, messages.length - keepLast);
  while (from > 0 && from < messages.length && messages[from]?.role === 'tool') from -= 1;
  return from;
}

function ancestorDropped(
  layout: ContextLayout,
  parent: number | undefined,
  dropped: ReadonlySet<object>,
): boolean {
  for (let p = parent; p !== undefined; p = layout.system[p]?.parent) {
    if (dropped.has(layout.system[p]?.key as object)) return true;
  }
  return false;
}

/**
 * The previous cut applied to this tick's elements: what no longer exists, or may no longer be
 * dropped (its priority was removed), is ignored.
 */
function fromCut(
  previous: Cut,
  candidates: readonly Candidate[],
  segments: readonly MessageSegment[],
  protectedFrom: number[],
): Plan {
  const dropped = new Set<object>();
  if (previous.dropped.size > 0) {
    for (const c of candidates) if (previous.dropped.has(c.key)) dropped.add(c.key);
  }
  const cuts = segments.map((segment, i) => {
    if (segment.kind !== 'timeline') return 0;
    const last = previous.timelines.get(segment.key);
    if (last === undefined) return 0;
    const { messages } = segment;
    // Usually at the same index; after the session trimmed its oldest messages, that many
    // earlier (searched backward from there). Not found: the session trimmed it away, so
    // everything left is newer (and was kept).
    const index =
      messages[last.index] === last.last ? last.index : messages.lastIndexOf(last.last, last.index);
    let cut = Math.min(index + 1, protectedFrom[i] ?? 0);
    while (cut < messages.length && messages[cut]?.role === 'tool') cut += 1;
    return cut;
  });
  return { dropped, cuts };
}

function candidatesOf(
  input: PruneInput,
  counter: TokenCounter,
  ephemeralTokens: number[],
): Candidate[] {
  const { layout } = input;
  const out: Candidate[] = [];
  const systemCount = layout.system.length;
  layout.system.forEach((unit, index) => {
    out.push({
      priority: unit.priority,
      position: index,
      kind: 'system',
      key: unit.key,
      index,
      tokens: counter.text(unit.text),
    });
  });
  layout.segments.forEach((segment, index) => {
    const position = systemCount + index;
    if (segment.kind === 'timeline') {
      out.push({
        priority: segment.priority,
        position,
        kind: 'timeline',
        key: segment.key,
        index,
        tokens: 0,
      });
    } else if (segment.priority !== undefined) {
      out.push({
        priority: segment.priority,
        position,
        kind: 'message',
        key: segment.key,
        index,
        tokens: counter.message(segment.message),
      });
    }
  });
  layout.ephemeral.forEach((entry, index) => {
    if (entry.priority === undefined) return;
    out.push({
      priority: entry.priority,
      position: systemCount + layout.segments.length + index,
      kind: 'ephemeral',
      key: entry.key,
      index,
      tokens: ephemeralTokens[index] ?? 0,
    });
  });
  return out.sort((a, b) => a.priority - b.priority || a.position - b.position);
}

/** Everything the candidates could give up (top-level system units only: no double counting). */
function droppableTokens(
  candidates: readonly Candidate[],
  segments: readonly MessageSegment[],
  protectedFrom: number[],
  counter: TokenCounter,
  ephemeralBlocks: number,
): number {
  let sum = 0;
  let messages = false;
  let ephemeral = 0;
  for (const c of candidates) {
    if (c.kind === 'timeline') {
      const segment = segments[c.index] as Extract<MessageSegment, { kind: 'timeline' }>;
      const from = protectedFrom[c.index] ?? 0;
      if (from > 0) messages = true;
      sum += counter.range(segment.messages, 0, from);
    } else {
      if (c.kind === 'message') messages = true;
      if (c.kind === 'ephemeral') ephemeral += 1;
      sum += c.tokens;
    }
  }
  // With every ephemeral block droppable, their message (and its framing) can go too.
  if (ephemeral > 0 && ephemeral === ephemeralBlocks) sum += MESSAGE_OVERHEAD;
  // A marker replaces dropped messages, only when a message can be dropped at all (dropping
  // only sections or ephemeral blocks writes none); a nested section counted twice only
  // lowers the floor.
  return messages ? sum - MARKER_ESTIMATE : sum;
}

/** Drops candidates in order until the estimated total is at most `target`. */
function greedy(
  plan: Plan,
  candidates: readonly Candidate[],
  start: number,
  target: number,
  segments: readonly MessageSegment[],
  protectedFrom: number[],
  counter: TokenCounter,
  layout: ContextLayout,
): void {
  let total = start;
  let marked = plan.dropped.size > 0 || plan.cuts.some((c) => c > 0);
  for (const c of candidates) {
    if (total <= target) return;
    if (c.kind === 'timeline') {
      const segment = segments[c.index] as Extract<MessageSegment, { kind: 'timeline' }>;
      const from = plan.cuts[c.index] ?? 0;
      const limit = protectedFrom[c.index] ?? 0;
      if (from >= limit) continue;
      const need = total - target + (marked ? 0 : MARKER_ESTIMATE);
      const cut = cutAfter(segment.messages, from, limit, need, counter);
      total -= counter.range(segment.messages, from, cut);
      if (!marked) total += MARKER_ESTIMATE;
      marked = true;
      plan.cuts[c.index] = cut;
    } else if (!plan.dropped.has(c.key)) {
      plan.dropped.add(c.key);
      if (c.kind === 'system') {
        if (!ancestorDropped(layout, layout.system[c.index]?.parent, plan.dropped))
          total -= c.tokens;
      } else {
        total -= c.tokens;
        if (c.kind === 'message' && !marked) {
          total += MARKER_ESTIMATE;
          marked = true;
        }
      }
    }
  }
}

/**
 * The smallest cut in (from, limit] that gives up at least `need` tokens, moved forward to the
 * start of an assistant turn so no tool result loses its call. Binary search on running sums.
 */
function cutAfter(
  messages: readonly ModelMessage[],
  from: number,
  limit: number,
  need: number,
  counter: TokenCounter,
): number {
  const base = counter.before(messages, from);
  let lo = from + 1;
  let hi = limit;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (counter.before(messages, mid) - base >= need) hi = mid;
    else lo = mid + 1;
  }
  let cut = lo;
  while (cut < limit && messages[cut]?.role === 'tool') cut += 1;
  return cut;
}
