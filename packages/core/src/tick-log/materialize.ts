import type { ModelMessage } from 'ai';
import type { MaterializedTick, TickRecord } from './tick-record.js';

/**
 * Rebuilds each tick's whole request from the delta records, oldest first. The first record
 * of a log always carries its whole request (`keep: 0`, `system`, `tools`): see `TickLog`.
 */
export function materializeTicks(records: readonly TickRecord[]): MaterializedTick[] {
  let system = '';
  let tools: MaterializedTick['tools'] = [];
  let messages: ModelMessage[] = [];
  const out: MaterializedTick[] = [];
  for (const record of records) {
    const request = record.request;
    if (request !== undefined) {
      if (request.system !== undefined) system = request.system;
      if (request.tools !== undefined) tools = request.tools;
      const after = request.keep + (request.drop ?? 0);
      messages = [
        ...messages.slice(0, request.keep),
        ...messages.slice(after, after + (request.keepAfter ?? 0)),
        ...request.added,
      ];
    }
    out.push({ record, system, tools, messages });
  }
  return out;
}

/** Records made self-contained from `from` on: the first request among them is whole. */
export function rebase(records: readonly TickRecord[], from: number): TickRecord[] {
  if (from <= 0) return [...records];
  const kept = records.slice(from);
  const first = kept.findIndex((record) => record.request !== undefined);
  const record = kept[first];
  if (record?.request === undefined) return kept;
  const whole = materializeTicks(records.slice(0, from + first + 1)).at(-1);
  if (whole === undefined) return kept;
  // Whole: nothing dropped from or kept of a request before it.
  const { drop: _dropped, keepAfter: _shared, ...request } = record.request;
  kept[first] = {
    ...record,
    request: {
      ...request,
      system: whole.system,
      tools: whole.tools,
      keep: 0,
      added: whole.messages,
    },
  };
  return kept;
}
