import type { ModelMessage } from 'ai';
import type { EphemeralBlock } from '../renderer/compiled-context.js';
import type { PruneInput } from './prune-input.js';
import { MESSAGE_OVERHEAD, type TokenCounter } from './tokens.js';

/** What a marker message costs, for decisions made before it is written. */
export const MARKER_ESTIMATE = 16;

/** A pruning decision: which elements are left out and how many messages of each timeline. */
export interface Plan {
  dropped: Set<object>;
  /** Per segment: messages dropped from the front of a timeline (0 for fixed messages). */
  cuts: number[];
}

export interface Assembled {
  system: string;
  systemTokens: number;
  messages: ModelMessage[];
  messageTokens: number[];
  ephemeral: EphemeralBlock[];
  ephemeralTokens: number[];
  tokens: number;
  dropped: { messages: number; system: number; ephemeral: number };
}

/** The request a plan sends, counted exactly (with this tokenizer). O(kept messages). */
export function assemble(input: PruneInput, plan: Plan, counter: TokenCounter): Assembled {
  const { layout } = input;
  let droppedSystem = 0;
  for (const unit of layout.system) if (plan.dropped.has(unit.key)) droppedSystem += 1;
  const system = droppedSystem > 0 ? layout.rebuildSystem(plan.dropped) : input.system;
  const systemTokens = counter.text(system);

  const messages: ModelMessage[] = [];
  const messageTokens: number[] = [];
  let droppedMessages = 0;
  let pending = 0;
  let turns: [number, number] | undefined;
  const flush = () => {
    if (pending === 0) return;
    const marker = markerMessage(pending, turns);
    messages.push(marker);
    messageTokens.push(counter.message(marker));
    pending = 0;
    turns = undefined;
  };
  layout.segments.forEach((segment, i) => {
    if (segment.kind === 'message') {
      if (plan.dropped.has(segment.key)) {
        pending += 1;
        droppedMessages += 1;
        return;
      }
      flush();
      messages.push(segment.message);
      messageTokens.push(counter.message(segment.message));
      return;
    }
    const list = segment.messages;
    const cut = plan.cuts[i] ?? 0;
    if (cut > 0) {
      droppedMessages += cut;
      // Counted over the session's history as this counter saw it (including messages the
      // session itself trimmed), so the marker's text stays the same while the cut does.
      const lastDropped = counter.entry(list[cut - 1] as ModelMessage);
      pending += lastDropped.ordinal + 1;
      turns = lastDropped.turns > 0 ? [1, lastDropped.turns] : undefined;
    }
    for (let m = cut; m < list.length; m++) {
      if (m === cut) flush();
      const message = list[m] as ModelMessage;
      messages.push(message);
      messageTokens.push(counter.entry(message).tokens);
    }
  });
  flush();

  const ephemeral: EphemeralBlock[] = [];
  const ephemeralTokens: number[] = [];
  let droppedEphemeral = 0;
  input.ephemeral.forEach((block, i) => {
    const key = layout.ephemeral[i]?.key;
    if (key !== undefined && plan.dropped.has(key)) {
      droppedEphemeral += 1;
      return;
    }
    ephemeral.push(block);
    ephemeralTokens.push(counter.text(block.text));
  });

  let tokens = systemTokens;
  for (const t of input.tools) tokens += counter.tool(t);
  for (const t of messageTokens) tokens += t;
  if (ephemeral.length > 0) {
    tokens += MESSAGE_OVERHEAD;
    for (const t of ephemeralTokens) tokens += t;
  }
  return {
    system,
    systemTokens,
    messages,
    messageTokens,
    ephemeral,
    ephemeralTokens,
    tokens,
    dropped: { messages: droppedMessages, system: droppedSystem, ephemeral: droppedEphemeral },
  };
}

/**
 * One short user message where messages were left out. Its text depends only on the cut,
 * so it stays byte-identical while the cut is kept.
 */
function markerMessage(count: number, turns: [number, number] | undefined): ModelMessage {
  const what = `${count.toLocaleString('en-US')} earlier message${count === 1 ? '' : 's'} omitted`;
  const when =
    turns === undefined
      ? ''
      : turns[0] === turns[1]
        ? ` (turn ${turns[1].toLocaleString('en-US')})`
        : ` (turns ${turns[0].toLocaleString('en-US')}–${turns[1].toLocaleString('en-US')})`;
  return { role: 'user', content: `[${what}${when} to fit the context budget]` };
}
