import { MARKER_ESTIMATE } from './assemble.js';
import type { BudgetHolding } from './context-budget-errors.js';
import type { PruneInput } from './prune-input.js';
import type { TokenCounter } from './tokens.js';

/** What may not be dropped (with sizes), for a `ContextBudgetError`. */
export function holdings(
  input: PruneInput,
  counter: TokenCounter,
  protectedFrom: number[],
): BudgetHolding[] {
  const { layout } = input;
  const out: BudgetHolding[] = [];
  const allSystem = layout.system.filter((u) => u.parent === undefined);
  const system = layout.rebuildSystem(new Set(allSystem.map((u) => u.key)));
  out.push({ what: 'system text without a priority', tokens: counter.text(system) });
  const tools = input.tools.reduce((sum, t) => sum + counter.tool(t), 0);
  out.push({ what: `tools (${input.tools.length})`, tokens: tools });
  let fixedCount = 0;
  let fixed = 0;
  let kept = 0;
  let keptCount = 0;
  layout.segments.forEach((segment, i) => {
    if (segment.kind === 'message') {
      if (segment.priority === undefined) {
        fixedCount += 1;
        fixed += counter.message(segment.message);
      }
    } else {
      const from = protectedFrom[i] ?? 0;
      keptCount += segment.messages.length - from;
      kept += counter.range(segment.messages, from, segment.messages.length);
    }
  });
  out.push({ what: `messages without a priority (${fixedCount})`, tokens: fixed });
  out.push({ what: `timeline messages kept by keepLast (${keptCount})`, tokens: kept });
  // Whatever is dropped from the messages is replaced by a short marker message (only when a
  // message may be dropped at all).
  const droppableMessage = layout.segments.some((x, i) =>
    x.kind === 'timeline' ? (protectedFrom[i] ?? 0) > 0 : x.priority !== undefined,
  );
  if (droppableMessage) {
    out.push({ what: 'the marker for dropped messages', tokens: MARKER_ESTIMATE });
  }
  input.ephemeral.forEach((block, i) => {
    if (layout.ephemeral[i]?.priority !== undefined) return;
    const label = block.source !== undefined ? `ephemeral [${block.source}]` : 'ephemeral';
    out.push({ what: label, tokens: counter.text(block.text) });
  });
  return out;
}
